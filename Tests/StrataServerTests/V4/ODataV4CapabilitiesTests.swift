import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataIdentity
@testable import StrataOData
import Testing

/// V4's `$metadata` tells each caller what it may do (issue 38, point 2): Capabilities' Insert-,
/// Update- and DeleteRestrictions per set from the caller's rights, Core.Permissions Read on the
/// properties no write of this caller can set, Core.Computed on generated keys.
@Suite("OData V4: $metadata annotations per caller")
struct ODataV4CapabilitiesTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]

    /// The Bool of `term`'s record on the entity set `set`.
    static func restriction(_ xml: EDMX, _ set: String, _ term: String) throws -> [String] {
        try xml.values("//*[local-name()='EntitySet'][@Name='\(set)']/*[local-name()='Annotation'][@Term='Capabilities.\(term)']/*[local-name()='Record']/*[local-name()='PropertyValue']/@Bool")
    }

    /// The annotation terms of one property.
    static func terms(_ xml: EDMX, _ type: String, _ property: String) throws -> [String] {
        try xml.values("//*[local-name()='EntityType'][@Name='\(type)']/*[local-name()='Property'][@Name='\(property)']/*[local-name()='Annotation']/@Term")
    }

    @Test("A reader, an editor and a role that may only insert Car each read their own restrictions", arguments: Backend.allCases)
    func perCaller(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("carmaker", password: TestAccounts.password("carmaker"), roles: [RoleAssignment(role: "carmaker")])
            try await admin.grant(role: "carmaker", service: "cardealer", table: "Car", actions: [.read, .insert], rowFilter: nil)
            try await admin.grant(role: "carmaker", service: "cardealer", table: "Person", actions: [.read, .update], rowFilter: "personID eq 1")
        }) { client in
            let reader = try EDMX(try await client.get("/cardealer/$metadata", headers: Self.v4 + basic(TestAccounts.reader)).text)
            for set in ["Car", "Person", "PersonCar"] {
                #expect(try Self.restriction(reader, set, "InsertRestrictions") == ["false"])
                #expect(try Self.restriction(reader, set, "UpdateRestrictions") == ["false"])
                #expect(try Self.restriction(reader, set, "DeleteRestrictions") == ["false"])
            }
            #expect(try Self.terms(reader, "Person", "lastName") == ["Core.Permissions"])
            #expect(try reader.values("//*[local-name()='EntityType'][@Name='Person']/*[local-name()='Property'][@Name='lastName']/*[local-name()='Annotation']/@EnumMember") == ["Core.Permission/Read"])
            #expect(try Self.terms(reader, "Person", "personID") == ["Core.Computed"])

            let editor = try EDMX(try await client.get("/cardealer/$metadata", headers: Self.v4 + basic(TestAccounts.editor)).text)
            for term in ["InsertRestrictions", "UpdateRestrictions", "DeleteRestrictions"] {
                #expect(try Self.restriction(editor, "Car", term) == ["true"])
            }
            #expect(try Self.terms(editor, "Person", "lastName") == [])
            #expect(try Self.terms(editor, "Person", "personID") == ["Core.Computed"])

            let carmaker = try await client.get("/cardealer/$metadata", headers: Self.v4 + basic("carmaker"))
            #expect(carmaker.status == .ok, "\(carmaker.text)")
            let scoped = try EDMX(carmaker.text)
            // The demo lets everyone read cardealer, so every set is in its model; only two are writable.
            #expect(try Self.restriction(scoped, "PersonCar", "InsertRestrictions") == ["false"])
            #expect(try Self.terms(scoped, "PersonCar", "carID") == ["Core.Permissions"])
            #expect(try Self.restriction(scoped, "Car", "InsertRestrictions") == ["true"])
            #expect(try Self.restriction(scoped, "Car", "UpdateRestrictions") == ["false"])
            #expect(try Self.restriction(scoped, "Car", "DeleteRestrictions") == ["false"])
            // A filtered right is a right: whether the action can succeed at all.
            #expect(try Self.restriction(scoped, "Person", "UpdateRestrictions") == ["true"])
            #expect(try Self.restriction(scoped, "Person", "InsertRestrictions") == ["false"])
            #expect(try Self.terms(scoped, "Car", "make") == [])

            // V2's document is as before: no V4 vocabulary.
            let v2 = try await client.get("/cardealer/$metadata", headers: basic(TestAccounts.reader))
            #expect(!v2.text.contains("Capabilities") && !v2.text.contains("Core.Permissions"))
        }
    }

    @Test("A view (read-only set) is neither insertable, updatable nor deletable, whoever asks")
    func readOnlySet() throws {
        let type = EntityType(name: "V", namespace: "n", properties: [
            EntityProperty(name: "id", type: .int32, isNullable: false),
            EntityProperty(name: "label", type: .string)], keyNames: ["id"])
        let model = ServiceModel(serviceName: "s", namespace: "n", containerName: "c", entityTypes: [type],
                                 entitySets: [EntitySet(name: "V", entityTypeName: "V", readOnlyReason: "a view")], associations: [])
        let xml = try EDMX(MetadataDocumentV4.xml(for: model))
        #expect(try Self.restriction(xml, "V", "InsertRestrictions") == ["false"])
        #expect(try Self.restriction(xml, "V", "DeleteRestrictions") == ["false"])
        #expect(try Self.terms(xml, "V", "label") == ["Core.Permissions"])
    }
}
