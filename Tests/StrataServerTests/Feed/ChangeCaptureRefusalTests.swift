import Foundation
import PostgresNIO
@testable import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Applying tracking with a database role that may not create triggers fails with an error naming
/// the service and the database's reason; and the log's JSON decodes to the values the normal read
/// path gives.
@Suite("Change capture: refusals and decoding")
struct ChangeCaptureRefusalTests {
    @Test("PostgreSQL: a role that may not create the log or triggers gets an error naming the service")
    func readOnlyRole() async throws {
        try await PostgresSlots.run(.postgres) {
            let configuration = try await TestDatabases.shared.configuration(.postgres)
            defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
            guard case .postgres(let location) = configuration.database, let database = location.database else { return }
            let endpoint = try await PostgresTestCluster.shared.start()
            let role = "reader_\(UUID().uuidString.prefix(6).lowercased())"
            try await TestDatabases.withAdminClient(endpoint, database: database) { client in
                try await client.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN"))
                try await client.query(PostgresQuery(unsafeSQL: "REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
                try await client.query(PostgresQuery(unsafeSQL: "GRANT USAGE ON SCHEMA cardealer TO \(role)"))
                try await client.query(PostgresQuery(unsafeSQL: "GRANT SELECT ON ALL TABLES IN SCHEMA cardealer TO \(role)"))
            }
            var limited = location
            limited.username = role
            let client = PostgresClient(configuration: limited.clientConfiguration, backgroundLogger: TestDatabases.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                let storage = try #require(try await store.discover().first { $0.name == "cardealer" })
                do {
                    try await ChangeCapture(storage: storage).apply([CaptureTable(name: "Car", key: ["carID"], links: [])])
                    Issue.record("a role without CREATE tracked changes")
                } catch let error as ChangeCaptureError {
                    #expect(error.service == "cardealer")
                    #expect(error.description.contains("service cardealer") && error.description.contains("permission denied"), "\(error)")
                }
            }
        }
    }

    @Test("SQLite: logged JSON decodes as the column's type: integers, text dates, hex BLOBs")
    func sqliteDecoding() {
        let decoding = ChangeLogDecoding(dialect: .sqlite, columnTypes: ["T": [
            "id": .int32, "big": .int64, "at": .dateTime, "blob": .binary, "name": .string, "flag": .boolean,
        ]])
        let values = decoding.values(#"{"id":7,"big":9007199254740993,"at":"2024-01-02 03:04:05.000","blob":"0AFF","name":"x","flag":1,"other":2.5}"#,
                                     table: "T")
        #expect(values["id"] == .int32(7))
        #expect(values["big"] == .int64(9_007_199_254_740_993))
        #expect(values["at"]?.type == .dateTime)
        #expect(values["blob"] == .binary(Data([0x0A, 0xFF])))
        #expect(values["name"] == .string("x"))
        #expect(values["flag"] == .boolean(true))
        #expect(values["other"] == .double(2.5), "a column the catalog does not type keeps its JSON form")
        #expect(decoding.values(nil, table: "T").isEmpty)
    }

    @Test("PostgreSQL: logged JSON decodes as the column's type: ISO timestamps, bytea, uuid")
    func postgresDecoding() {
        let decoding = ChangeLogDecoding(dialect: .postgres, columnTypes: ["T": [
            "id": .int64, "at": .dateTime, "blob": .binary, "guid": .guid, "price": .decimal,
        ]])
        let values = decoding.values(#"{"id":7,"at":"2024-01-02T03:04:05.123","blob":"\\x0aff","guid":"7a0c1b7e-7f1c-4f43-9d3e-2b8f9b0c8a11","price":12.50}"#,
                                     table: "T")
        #expect(values["id"] == .int64(7))
        #expect(values["at"]?.type == .dateTime)
        #expect(values["blob"] == .binary(Data([0x0A, 0xFF])))
        #expect(values["guid"]?.type == .guid)
        #expect(values["price"] == .decimal(Decimal(string: "12.50")!))
    }
}
