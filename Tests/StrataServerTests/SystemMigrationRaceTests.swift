import Foundation
import Logging
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

/// Several servers starting at the same moment on one empty system database: each migration runs
/// exactly once, whole, and every server starts. Each "server" here has connections of its own
/// (its own PostgreSQL client, or its own SQLite handles on the shared file), as separate processes
/// would.
@Suite("System migrations: servers starting at once")
struct SystemMigrationRaceTests {
    static let servers = 3

    /// Runs `migrate` for each server at once; answers each one's "created the schema" and log lines.
    static func race(_ migrate: @escaping @Sendable (Logger) async throws -> Bool) async throws -> (created: [Bool], applied: [String]) {
        let captures = (0..<servers).map { _ in LogCapture() }
        let created = try await withThrowingTaskGroup(of: Bool.self) { group in
            for capture in captures {
                group.addTask {
                    // Each migration's line is at debug; the info line only says how many ran.
                    var logger = Logger(label: "race", factory: { _ in capture })
                    logger.logLevel = .debug
                    return try await migrate(logger)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let applied = captures.flatMap(\.lines).filter { $0.contains("Applied system migration") }
        return (created, applied)
    }

    @Test("PostgreSQL: three servers on an empty system schema apply each migration once")
    func postgres() async throws {
        try await withEmptyPostgresDatabase { _, location, _ in
            let schema = "strata_race_\(UUID().uuidString.prefix(8).lowercased())"
            let result = try await Self.race { logger in
                try await location.withClient(logger: logger) { client in
                    let store = PostgresServiceStore(client: client, counter: .none, logger: logger)
                    return try await SystemDatabase(database: store.system, schema: schema).migrate(logger: logger)
                }
            }
            #expect(result.created.filter { $0 }.count == 1, "\(result.created)")
            try await location.withClient(logger: TestDatabases.logger) { client in
                let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger)
                let count = SystemDatabase(database: store.system, schema: schema).migrations.count
                #expect(count > 5 && result.applied.count == count, "\(result.applied)")
                let rows = try await store.system.read { connection in
                    try await connection.query("SELECT count(*) FROM \(TableName(schema: schema, name: "strata_migrations"))", types: [.int64])
                }
                #expect(rows.rows.first?.first?.integerValue == Int64(count))
                // Every server sees the same, complete system tables.
                #expect(try await SystemDatabase(database: store.system, schema: schema).serviceSettings().isEmpty)
            }
        }
    }

    @Test("SQLite: three servers on one new system file apply each migration once")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-race-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.race { logger in
            let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: logger)
            do {
                let created = try await SystemDatabase(database: store.system, schema: nil).migrate(logger: logger)
                await store.close()
                return created
            } catch {
                await store.close()
                throw error
            }
        }
        let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
        let count = SystemDatabase(database: store.system, schema: nil).migrations.count
        let rows = try await store.system.read { connection in
            try await connection.query("SELECT count(*) FROM \(TableName(name: "strata_migrations"))", types: [.int64])
        }
        await store.close()
        #expect(count > 5 && result.applied.count == count, "\(result.applied)")
        #expect(rows.rows.first?.first?.integerValue == Int64(count))
    }
}
