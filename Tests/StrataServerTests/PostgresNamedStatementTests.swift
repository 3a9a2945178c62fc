import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Key reads on PostgreSQL run as named prepared statements (``NamedStatements``).
@Suite("PostgreSQL named statements")
struct PostgresNamedStatementTests {
    @Test("A key read leaves its statement prepared on the connection; one whose preparation failed recovers when the table is back")
    func keyReadsArePrepared() async throws {
        try await withEmptyPostgresDatabase { configuration, location, databaseName in
            // Table names of this test only: the names of statements derive from their text, and
            // which of them are abandoned is remembered per process.
            try await TestDatabases.shared.provision("depot", .postgres, into: configuration, scripts: [
                #"CREATE TABLE "Crate" ("id" BIGINT PRIMARY KEY, "label" VARCHAR(20)); INSERT INTO "Crate" VALUES (1, 'nails'), (2, 'screws');"#,
                #"CREATE TABLE "Pallet" ("id" INTEGER PRIMARY KEY, "spot" VARCHAR(20)); INSERT INTO "Pallet" VALUES (7, 'north');"#,
            ])
            // One connection, so that what one request prepared is visible to the next.
            let logger = TestDatabases.logger
            let client = PostgresClient(configuration: location.clientConfiguration(keepingOpen: 1), backgroundLogger: logger)
            let store = PostgresServiceStore(client: client, counter: .none, logger: logger, connectionWait: .seconds(60))
            let runtime = StrataRuntime(configuration: configuration, store: store, metrics: StrataMetrics(), logger: logger,
                                        accessPolicy: OpenAccessPolicy())
            var app = Application(router: Routes.responder(runtime: runtime), services: [client, RuntimeShutdown(runtime: runtime)],
                                  logger: logger)
            app.beforeServerStarts { try await runtime.start() }
            try await app.test(.router) { http in
                for (key, label) in [(1, "nails"), (2, "screws"), (1, "nails")] {
                    let response = try await http.get("/depot/Crate(\(key))")
                    #expect(response.status == .ok)
                    #expect(response.json["d"]["label"]?.stringValue == label)
                }
                let service = try #require(runtime.service(named: "depot"))
                let crate = try #require(service.wholeEntityReads["Crate"])
                let name = try #require(crate.byKeyName), sql = try #require(crate.byKeySQL)
                let prepared = try await service.database.read {
                    try await $0.query("SELECT name, statement FROM pg_prepared_statements", types: [.string, .string])
                }
                #expect(prepared.rows == [[.string(name), .string(sql.sql)]])

                // Pallet's statement is prepared first while its table is away: postgres-nio remembers
                // that failure for the connection, so without the unnamed retry every later read of a
                // pallet would fail until the server restarts.
                let pallet = try #require(service.wholeEntityReads["Pallet"]?.byKeyName)
                try await Self.admin(location, database: databaseName, #"ALTER TABLE "depot"."Pallet" RENAME TO "PalletAway""#)
                let away = try await http.get("/depot/Pallet(7)")
                #expect(away.status != .ok)
                #expect(away.odataError != nil)
                try await Self.admin(location, database: databaseName, #"ALTER TABLE "depot"."PalletAway" RENAME TO "Pallet""#)
                for _ in 0..<2 {
                    let back = try await http.get("/depot/Pallet(7)")
                    #expect(back.status == .ok)
                    #expect(back.json["d"]["spot"]?.stringValue == "north")
                }
                #expect(NamedStatements.isAbandoned(pallet))
                #expect(!NamedStatements.isAbandoned(name))
            }
        }
    }

    @Test("Statement names derive from the text: stable, distinct, and short enough for PostgreSQL")
    func names() {
        let a = NamedStatements.name(for: #"SELECT "id" FROM "Crate" AS t0 WHERE t0."id" = $1 LIMIT 1"#)
        #expect(a == NamedStatements.name(for: #"SELECT "id" FROM "Crate" AS t0 WHERE t0."id" = $1 LIMIT 1"#))
        #expect(a != NamedStatements.name(for: #"SELECT "id" FROM "Crate" AS t0 WHERE t0."id" = $1 LIMIT 2"#))
        #expect(a.hasPrefix("strata_") && a.utf8.count == 31 && a.utf8.count <= 63)
    }

    private static func admin(_ location: PostgresLocation, database: String, _ sql: String) async throws {
        let endpoint = PostgresTestCluster.Endpoint(location)
        do {
            try await TestDatabases.withAdminClient(endpoint, database: database) { client in
                _ = try await client.query(PostgresQuery(unsafeSQL: sql))
            }
        } catch {
            Issue.record("\(sql): \(String(reflecting: error))")
            throw error
        }
    }
}
