import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `GET /{service}/$tables`: whole tables in the compact form, with OData's options, on both databases.
@Suite("Data tables: fetch")
struct DataTableFetchTests {
    @Test("A whole table: field definitions and every row in key order, equal to the OData read", arguments: Backend.allCases)
    func wholeTable(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/$tables/Person")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json;charset=utf-8")
            // A single table answers the table object without the wrapper.
            #expect(response.json["tables"] == nil)
            let table = try #require(try CompactTable.decode(Array(response.body.readableBytesView)).first)
            #expect(table.name == "Person")
            #expect(table.fields.map(\.name) == ["personID", "firstName", "lastName", "ssn", "createDate"])
            #expect(table.field("personID") == DataTableField(name: "personID", type: .int32, required: true, key: true,
                                                               readOnly: true, serverGenerated: true))
            #expect(table.field("firstName") == DataTableField(name: "firstName", type: .string, size: 50, required: true))
            #expect(table.field("ssn") == DataTableField(name: "ssn", type: .string, size: 11))
            #expect(table.field("createDate")?.type == .dateTime)
            #expect(table.rows.count == (try await client.count("/cardealer/Person")))
            let keys = table.column("personID").compactMap(\.integerValue)
            #expect(keys == keys.sorted())
            #expect(table.rows.first == [.int32(1), .string("Bob"), .string("Samson"), .string("543872934"),
                                         try ODataJSON.decode(.string("/Date(1257008908440)/"), as: .dateTime)])
            // Values are in OData verbose JSON form: the date as \/Date(ms)\/.
            #expect(response.text.contains(#"[1,"Bob","Samson","543872934","\/Date(1257008908440)\/"]"#))
        }
    }

    @Test("$filter, $orderby, $top, $skip and $select narrow the table as they narrow an OData read", arguments: Backend.allCases)
    func everyOption(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let query = "$filter=lastName%20eq%20'Johnson'%20or%20lastName%20eq%20'Campbell'&$orderby=lastName%20desc,firstName&$skip=1&$top=3"
            let table = try #require(try await client.tables("/cardealer/$tables/Person?\(query)&$select=firstName,lastName").first)
            // $select keeps the key so the rows can be changed and sent back.
            #expect(table.fields.map(\.name) == ["personID", "firstName", "lastName"])
            let odata = try await client.get("/cardealer/Person?\(query)").json["d"]["results"]?.arrayValue ?? []
            #expect(table.rows.count == odata.count)
            #expect(table.rows.count == 3)
            #expect(table.column("firstName").compactMap(\.stringValue) == odata.compactMap { $0["firstName"]?.stringValue })
            #expect(table.column("lastName").compactMap(\.stringValue) == odata.compactMap { $0["lastName"]?.stringValue })
            let empty = try #require(try await client.tables("/cardealer/$tables/Car?$top=0").first)
            #expect(empty.rows.isEmpty)
            #expect(empty.fields.map(\.name) == ["carID", "make", "model", "manufactureDate", "createStamp"])
            let skipped = try #require(try await client.tables("/cardealer/$tables/Car?$skip=100000").first)
            #expect(skipped.rows.isEmpty)
        }
    }

    @Test("Several tables by name answer the tables wrapper, in the order asked", arguments: Backend.allCases)
    func severalTables(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/$tables?names=Car,Person,PersonCar")
            #expect(response.status == .ok)
            #expect(response.json["tables"]?.arrayValue?.count == 3)
            let tables = try CompactTable.decode(Array(response.body.readableBytesView))
            #expect(tables.map(\.name) == ["Car", "Person", "PersonCar"])
            #expect(tables[0].rows.count == (try await client.count("/cardealer/Car")))
            #expect(tables[1].rows.count == (try await client.count("/cardealer/Person")))
            #expect(tables[2].rows.count == (try await client.count("/cardealer/PersonCar")))
            #expect(tables[2].field("personID") == DataTableField(name: "personID", type: .int32, required: true))
        }
    }

    @Test("A table larger than one chunk streams whole, across the chunks", arguments: Backend.allCases)
    func streamsAcrossChunks(_ backend: Backend) async throws {
        try await withServer(backend, services: [FleetService.service(owners: 1200)]) { client in
            let table = try #require(try await client.tables("/fleet/$tables/Trip").first)
            #expect(table.rows.count == 2400)
            #expect(table.column("tripID").compactMap(\.integerValue) == Array(2...2401).map(Int64.init))
            let ordered = try #require(try await client.tables("/fleet/$tables/Trip?$orderby=km%20desc&$skip=1100&$top=200").first)
            #expect(ordered.rows.count == 200)
            #expect(ordered.column("km").compactMap(\.integerValue) == Array(repeating: 20, count: 100) + Array(repeating: 10, count: 100))
        }
    }

    @Test("Bad requests are 4xx OData errors", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let cases: [(String, Int)] = [
                ("/cardealer/$tables/Nope", 404),
                ("/cardealer/$tables?names=Person,Nope", 404),
                ("/cardealer/$tables", 400),
                ("/cardealer/$tables?names=Person,,Car", 400),
                ("/cardealer/$tables?names=Person,Person", 400),
                ("/cardealer/$tables?names=Person&$top=1", 400),
                ("/cardealer/$tables/Person?$expand=PersonCar", 400),
                ("/cardealer/$tables/Person?$inlinecount=allpages", 400),
                ("/cardealer/$tables/Person?$filter=nope%20eq%201", 400),
                ("/cardealer/$tables/Person?$filter=firstName%20eq", 400),
                ("/cardealer/$tables/Person?other=1", 400),
                ("/cardealer/$tables/Person(1)", 400),
                ("/cardealer/$tables/Person/PersonCar", 400),
                ("/cardealer/$tables/Person?$format=xml", 406),
            ]
            for (uri, status) in cases {
                let response = try await client.get(uri)
                #expect(Int(response.status.code) == status, "\(uri): \(response.text)")
                #expect(response.odataError != nil, "\(uri): \(response.text)")
            }
            let post = try await client.send(.post, "/cardealer/$tables/Person", headers: [.contentType: "application/json"], body: "{}")
            #expect(post.status == .methodNotAllowed)
        }
    }

    /// Reading Car is refused; Person rows are limited to personID < 4.
    struct ReadRulesPolicy: AccessPolicy {
        func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
            if table == "Car" { throw ODataError.forbidden("Car is not yours to read.") }
            guard table == "Person", let type = service.model.entityType(named: "Person"),
                  let filter = try QueryOptions(parsing: "$filter=personID lt 4").filter else { return .unrestricted }
            return RowAccess(filter: try QueryBinder(model: service.model).bindFilter(filter, on: type))
        }
    }

    @Test("Read rights and row filters apply to $tables as to OData reads", arguments: Backend.allCases)
    func accessRules(_ backend: Backend) async throws {
        try await withPolicyServer(backend, policy: ReadRulesPolicy()) { client in
            let people = try #require(try await client.tables("/cardealer/$tables/Person").first)
            #expect(people.column("personID") == [.int32(1), .int32(2), .int32(3)])
            #expect(try await client.get("/cardealer/$tables/Car").status == .forbidden)
            #expect(try await client.get("/cardealer/$tables?names=Person,Car").status == .forbidden)
        }
    }
}
