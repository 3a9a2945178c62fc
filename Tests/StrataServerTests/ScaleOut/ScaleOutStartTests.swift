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

/// Three `strata serve` processes started at the same moment on an empty PostgreSQL database:
/// every one of them starts, and the system migrations ran exactly once.
@Suite("Scale-out: servers starting at once")
struct ScaleOutStartTests {
    @Test("Three server processes on an empty database: all start, each system migration applied once")
    func simultaneousStart() async throws {
        try await withEmptyPostgresDatabase { configuration, location, _ in
            // The test database comes with the system tables of its template; empty it of them.
            try await location.withClient(logger: TestDatabases.logger) { client in
                let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                try await store.system.transaction { connection in
                    try await connection.execute("DROP SCHEMA IF EXISTS \(identifier: SystemPlacement.postgresSchema) CASCADE")
                }
            }
            let url = "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database ?? "")"
            let binary = try StrataProcess.executable()
            let directories = (1...3).map { configuration.dataDirectory + "-start\($0)" }
            defer { for directory in directories { try? FileManager.default.removeItem(atPath: directory) } }
            // All three spawned before any is waited for: they start at the same moment.
            var servers: [StrataProcess] = []
            defer { for server in servers { server.kill() } }
            for directory in directories {
                servers.append(try StrataProcess.launch(
                    binary, arguments: ["serve", "--data", directory, "--database", url, "--log-level", "debug"],
                    environment: ScaleOutCluster.environment))
            }
            // Every server started and is ready: waitUntilHealthy throws for one that exited or never answered.
            for server in servers { try await server.waitUntilHealthy() }
            let applied = servers.flatMap { server in
                ((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "").split(separator: "\n")
                    .filter { $0.contains("Applied system migration") }
            }
            try await location.withClient(logger: TestDatabases.logger) { client in
                let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                let system = SystemDatabase(database: store.system, schema: SystemPlacement.postgresSchema)
                let rows = try await store.system.read { connection in
                    try await connection.query("SELECT count(*) FROM \(system.table("strata_migrations"))", types: [.int64])
                }
                let count = system.migrations.count
                #expect(rows.rows.first?.first?.integerValue == Int64(count))
                #expect(applied.count == count, "each migration is logged once across the three servers: \(applied)")
            }
        }
    }
}
