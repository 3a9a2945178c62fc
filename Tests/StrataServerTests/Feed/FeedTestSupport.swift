import Foundation
import HummingbirdTesting
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

/// A running server on a fresh copy of the demo data whose `cardealer` service is tracked, with
/// what the change-feed tests reach into: the runtime, the service's change log, and a connection
/// to its database that is not Strata's.
struct TrackedServer: Sendable {
    let backend: Backend
    let client: any TestClientProtocol
    let runtime: StrataRuntime
    let configuration: StrataConfiguration
    let serviceName: String

    var service: ODataService {
        get throws { try #require(runtime.service(named: serviceName), "the service \(serviceName) is not served") }
    }

    var log: ChangeLog {
        get throws { ChangeLog(storage: try service.storage) }
    }

    /// The log's current cursor, in a snapshot of its own.
    func current() async throws -> ChangeCursor {
        let log = try self.log
        return try await service.database.snapshot { try await log.current($0) }
    }

    /// The window after `cursor`, read in one snapshot as a delta reader will.
    func window(after cursor: ChangeCursor, upTo: ChangeCursor? = nil, limit: Int = 10_000) async throws -> ChangeWindow {
        let log = try self.log
        return try await service.database.snapshot { try await log.window(after: cursor, upTo: upTo, limit: limit, $0) }
    }

    func info() async throws -> ChangeLogInfo? {
        let log = try self.log
        return try await service.database.read { try await log.info($0) }
    }

    /// The service's SQLite file.
    var sqlitePath: String { configuration.dataDirectory + "/\(serviceName).sqlite" }

    /// Runs statements through a connection that is not Strata's: Python's `sqlite3` (its own
    /// SQLite library, without Strata's functions) or a PostgreSQL connection of its own, with
    /// `search_path` set to the service's schema. Statements are written with unqualified names.
    func foreign(_ statements: String...) async throws {
        switch backend {
        case .sqlite:
            try await PythonSQLite.execute(sqlitePath, statements.joined(separator: ";\n"))
        case .postgres:
            try await withForeignPostgres { connection in
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: TestDatabases.logger) }
            }
        }
    }

    /// A PostgreSQL connection of its own to the service's database.
    func withForeignPostgres<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard case .postgres(let location) = configuration.database else { throw TrackingTestError("not a PostgreSQL server") }
        let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: TestDatabases.logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.withConnection { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(serviceName)"), logger: TestDatabases.logger)
                return try await body(connection)
            }
        }
    }

    /// Database rows through Strata's own connection (for the catalog questions of the tests).
    func query(_ sql: SQLStatement, types: [EDMPrimitiveType?] = []) async throws -> [[ODataValue]] {
        try await service.database.read { try await $0.query(sql, types: types) }.rows
    }
}

struct TrackingTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Switches tracking of `service` on for `tables` (nil: every table) as `strata service track`
/// does, then reloads the runtime so that it serves the tracked model (and, on SQLite, counts its
/// transactions).
func enableTracking(_ runtime: StrataRuntime, _ configuration: StrataConfiguration, service: String = "cardealer",
                    tables: [String]? = nil, off: Bool = false) async throws {
    // The demo tracks every table of cardealer: naming tables means exactly those, so start from none.
    if tables != nil, !off {
        _ = try await Administration.track(service, tables: nil, off: true, configuration, logger: TestDatabases.logger)
    }
    _ = try await Administration.track(service, tables: tables, off: off, configuration, logger: TestDatabases.logger)
    let report = try await runtime.reloadServices()
    #expect(report.refused.isEmpty, "\(report.refused)")
}

/// Runs a test against a server whose cardealer service tracks `tables`.
func withTrackedServer<T: Sendable>(
    _ backend: Backend, tables: [String]? = nil, configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    _ test: @Sendable (TrackedServer) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend)
        configure(&configuration)
        let prepared = configuration
        defer { try? FileManager.default.removeItem(atPath: prepared.dataDirectory) }
        let built = try await makeApplication(prepared, logger: TestDatabases.logger)
        return try await built.application.test(.router) { client in
            try await enableTracking(built.runtime, prepared, tables: tables)
            return try await test(TrackedServer(backend: backend, client: AdministratorTestClient(base: client), runtime: built.runtime,
                                                configuration: prepared, serviceName: "cardealer"))
        }
    }
}

extension LoggedChange {
    /// `table key…` with integer values, for compact expectations: `Car 7`.
    var summary: String {
        let values = key.sorted { $0.key < $1.key }.map { "\($0.value.integerValue.map(String.init) ?? "\($0.value)")" }
        return "\(table) \(values.joined(separator: ","))"
    }
}
