import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HTTPTypes
import HummingbirdTesting
import Testing

/// `$metadata`: EDMX 1.0 with a CSDL schema a standard OData V2 client can load.
@Suite("$metadata")
struct MetadataTests {
    @Test("Structure: types, keys, properties, navigation, associations, container", arguments: Backend.allCases)
    func structure(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/$metadata")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/xml;charset=utf-8")
            let xml = try EDMX(response.text)
            #expect(try xml.values("/*[local-name()='Edmx']/@Version") == ["1.0"])
            #expect(response.text.contains(#"xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx""#))
            #expect(try xml.values("//*[local-name()='DataServices']/@*[local-name()='DataServiceVersion']") == ["2.0"])
            #expect(try xml.values("//*[local-name()='Schema']/@Namespace") == ["edmexampleModel"])
            #expect(try xml.values("//*[local-name()='EntityType']/@Name") == ["Car", "Maintenance", "Person", "PersonCar", "PersonCarMaintenance"])

            let person = "//*[local-name()='EntityType'][@Name='Person']"
            #expect(try xml.values("\(person)/*[local-name()='Key']/*[local-name()='PropertyRef']/@Name") == ["personID"])
            #expect(try xml.values("\(person)/*[local-name()='Property']/@Name") == ["personID", "firstName", "lastName", "ssn", "createDate"])
            func property(_ name: String, _ attribute: String) throws -> [String] {
                try xml.values("\(person)/*[local-name()='Property'][@Name='\(name)']/@\(attribute)")
            }
            #expect(try property("personID", "Type") == ["Edm.Int32"])
            #expect(try property("personID", "Nullable") == ["false"])
            #expect(try property("ssn", "MaxLength") == ["11"])
            #expect(try property("ssn", "Nullable") == ["true"])
            #expect(try property("createDate", "Type") == ["Edm.DateTime"])
            let navigation = "\(person)/*[local-name()='NavigationProperty']"
            #expect(try xml.values("\(navigation)/@Name") == ["PersonCar"])
            #expect(try xml.values("\(navigation)/@Relationship") == ["edmexampleModel.FK_PersonCar_Person"])
            #expect(try xml.values("\(navigation)/@FromRole") == ["Person"])
            #expect(try xml.values("\(navigation)/@ToRole") == ["PersonCar"])

            let association = "//*[local-name()='Association'][@Name='FK_PersonCar_Person']"
            #expect(try xml.values("\(association)/*[local-name()='End']/@Role") == ["Person", "PersonCar"])
            #expect(try xml.values("\(association)/*[local-name()='End']/@Multiplicity") == ["1", "*"])
            #expect(try xml.values("\(association)//*[local-name()='Dependent']/*[local-name()='PropertyRef']/@Name") == ["personID"])

            let container = "//*[local-name()='EntityContainer']"
            #expect(try xml.values("\(container)/@*[local-name()='IsDefaultEntityContainer']") == ["true"])
            #expect(try xml.values("\(container)/*[local-name()='EntitySet']/@Name").count == 5)
            #expect(try xml.values("\(container)/*[local-name()='AssociationSet']/@Name").count == 4)
            #expect(try xml.values("\(container)/*[local-name()='AssociationSet'][@Name='FK_PersonCar_Car']/*[local-name()='End']/@EntitySet") == ["Car", "PersonCar"])
        }
    }

    @Test("Composite keys and a foreign key to a unique column (speakeasy)", arguments: Backend.allCases)
    func tableStorage(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let xml = try EDMX(try await client.get("/speakeasy/$metadata").text)
            let events = "//*[local-name()='EntityType'][@Name='Events']"
            #expect(try xml.values("\(events)/*[local-name()='Key']/*[local-name()='PropertyRef']/@Name") == ["PartitionKey", "RowKey"])
            #expect(try xml.values("\(events)/*[local-name()='NavigationProperty']/@Name") == ["Speakers"])
        }
    }

    @Test("Self-references and name collisions are disambiguated by the foreign key column", arguments: [Backend.sqlite])
    func selfReference(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [SampleService.service]) { client in
            let xml = try EDMX(try await client.get("/types/$metadata").text)
            #expect(try xml.values("//*[local-name()='NavigationProperty']/@Name").sorted() == ["ReferencingSample_parentID", "Sample_parentID"])
            let types = try xml.values("//*[local-name()='Property']/@Type")
            #expect(Set(types) == ["Edm.Int32", "Edm.String", "Edm.Int64", "Edm.Decimal", "Edm.Double", "Edm.Boolean",
                                   "Edm.DateTime", "Edm.DateTimeOffset", "Edm.Time", "Edm.Guid", "Edm.Binary"])
        }
    }
}

/// XPath over a metadata document, by local names (namespace prefixes vary between XML libraries).
struct EDMX {
    let document: XMLDocument

    init(_ text: String) throws {
        document = try XMLDocument(data: Data(text.utf8))
    }

    func values(_ xpath: String) throws -> [String] {
        try document.nodes(forXPath: xpath).compactMap(\.stringValue)
    }
}
