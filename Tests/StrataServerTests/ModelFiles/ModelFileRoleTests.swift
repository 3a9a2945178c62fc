import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// Column-level security from a model file: the CarDealer sample's `ssn`, readable by editors
/// only, is absent from every path for anonymous callers and readers, and there for editors and
/// administrators.
@Suite("Model files: columns readable by some roles")
struct ModelFileRoleTests {
    static let file = "tables:\n  Person:\n    columns:\n      ssn: { readableBy: [editor] }\n"

    @Test("Anonymous callers and readers do not see ssn anywhere; editors and administrators do", arguments: Backend.allCases)
    func ssnByRole(_ backend: Backend) async throws {
        try await withAuthServer(backend, configure: { configuration in
            try? Self.file.write(to: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("cardealer.model.yaml"),
                                 atomically: true, encoding: .utf8)
        }) { client in
            let json: HTTPFields = [.contentType: "application/json"]
            for (who, headers) in [("anonymous", HTTPFields()), ("reader", basic(TestAccounts.reader))] {
                let people = try await client.get("/cardealer/Person?$top=3", headers: headers)
                let rows = people.json["d"]["results"]?.arrayValue ?? []
                #expect(rows.count == 3, "\(who): \(people.text.prefix(200))")
                #expect(rows.allSatisfy { $0["ssn"] == nil && $0["lastName"] != nil }, "\(who)")
                for uri in ["/cardealer/Person?$select=ssn", "/cardealer/Person?$filter=ssn%20ne%20null", "/cardealer/Person?$orderby=ssn"] {
                    let refused = try await client.get(uri, headers: headers)
                    #expect(refused.status == .badRequest, "\(who) \(uri): \(refused.status)")
                }
                #expect(!(try await client.get("/cardealer/$metadata", headers: headers)).text.contains("ssn"), "\(who)")
                let table = try await client.get("/cardealer/$tables/Person?$top=2", headers: headers)
                #expect(table.status == .ok && !table.text.contains("ssn"), "\(who): \(table.text.prefix(200))")
                let expanded = try await client.get("/cardealer/PersonCar?$top=2&$expand=Person", headers: headers)
                #expect(expanded.status == .ok && !expanded.text.contains("ssn"), "\(who): \(expanded.text.prefix(200))")
                let sql = try await client.send(.post, "/cardealer/$sql", headers: headers + json, body: #"{"sql":"SELECT ssn FROM Person"}"#)
                #expect(sql.status != .ok, "\(who): \(sql.text.prefix(200))")
            }
            for (who, headers) in [("editor", basic(TestAccounts.editor)), ("admin", basic(TestAccounts.admin))] {
                let people = try await client.get("/cardealer/Person?$top=3&$select=personID,ssn", headers: headers)
                let rows = people.json["d"]["results"]?.arrayValue ?? []
                #expect(rows.count == 3 && rows.allSatisfy { $0["ssn"] != nil }, "\(who): \(people.text.prefix(200))")
                #expect(try await client.get("/cardealer/$metadata", headers: headers).text.contains("Name=\"ssn\""), "\(who)")
                let sql = try await client.send(.post, "/cardealer/$sql", headers: headers + json, body: #"{"sql":"SELECT ssn FROM Person LIMIT 1"}"#)
                #expect(sql.status == .ok, "\(who): \(sql.text.prefix(200))")
            }
        }
    }

    @Test("The printed model keeps readableBy, and reads back to the same restriction")
    func printed() throws {
        let yaml = "tables:\n  Orders:\n    columns:\n      Shipped: { readableBy: [staff, editor] }\n"
        let file = try ModelFile(yaml: yaml, path: "shop.model.yaml")
        let shaped = try file.apply(to: ModelFileCheckTests.catalog, dialect: .sqlite)
        let built = try ModelBuilder(serviceName: "shop", namespace: "shop", logger: TestDatabases.logger).build(shaped)
        let loaded = ServiceLoader.Loaded(settings: ServiceSettings(), built: built, maxProtocolVersion: .v2,
                                          original: ModelFileCheckTests.catalog, catalog: shaped, modelFile: file)
        let text = loaded.modelFileText(service: "shop")
        #expect(text.contains("      Shipped: { name: Shipped, type: Edm.Int32, readableBy: [editor, staff] }"), "\(text)")
        let reread = try ModelFile(yaml: text, path: "printed").apply(to: ModelFileCheckTests.catalog, dialect: .sqlite)
        #expect(reread.first { $0.name == "Orders" }?.column(named: "Shipped")?.readableBy == ["staff", "editor"])
        // A caller with neither role is served Orders without Shipped, under the same names.
        let view = try #require(loaded.catalog(for: ["reader"]))
        #expect(view.first { $0.name == "Orders" }?.column(named: "Shipped") == nil)
        #expect(loaded.catalog(for: ["staff"]) == nil)
    }

    @Test("A restricted column cannot be a key or a foreign key column")
    func refusals() throws {
        for (yaml, fragment) in [
            ("tables:\n  Orders:\n    columns:\n      OrderID: { readableBy: [editor] }\n", "part of the key"),
            ("tables:\n  Order Details:\n    columns:\n      ProductID: { readableBy: [editor] }\n", "part of the key"),
            ("tables:\n  Orders:\n    columns:\n      Shipped: { readableBy: [editor], hidden: true }\n", "hidden from everyone"),
        ] {
            #expect(throws: ModelFileError.self, "\(yaml)") { try ModelFileCheckTests.check(yaml) }
            do { _ = try ModelFileCheckTests.check(yaml) } catch let error as ModelFileError {
                #expect(error.message.contains(fragment), "\(error)")
            }
        }
    }
}
