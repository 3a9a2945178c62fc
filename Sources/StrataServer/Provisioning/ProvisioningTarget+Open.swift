import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataStorage

extension ProvisioningTarget {
    /// Opens the data a server with the same options would serve, without a server, for the
    /// duration of `body`: SQLite files in `dataDirectory`, or the schemas of a PostgreSQL database.
    /// The system tables are created first if no server has run yet. There is no blob store and no
    /// account provisioning outside a server.
    package static func with<T: Sendable>(
        dataDirectory: URL, postgres: PostgresLocation?, logger: Logger,
        _ body: @Sendable (ProvisioningTarget) async throws -> T
    ) async throws -> T {
        try await DetachedStore.with(directory: dataDirectory, database: postgres.map(DatabaseLocation.postgres), logger: logger) { store in
            try await run(store, dataDirectory, logger, body)
        }
    }

    private static func run<T: Sendable>(_ store: any ServiceStore, _ dataDirectory: URL, _ logger: Logger,
                                         _ body: @Sendable (ProvisioningTarget) async throws -> T) async throws -> T {
        let system = SystemDatabase(database: store.system, schema: store.systemSchema)
        try await system.migrate(logger: logger)
        return try await body(ProvisioningTarget(store: store, system: system, modelDirectory: dataDirectory, logger: logger))
    }

    /// Fills tables of a service created by ``createService(_:scripts:)`` in one transaction. When
    /// `body` fails, the whole service is removed (its schema dropped, or its file deleted), so that
    /// no half-filled service is left behind.
    package func load<T: Sendable>(into service: String, _ body: @escaping @Sendable (inout BulkLoader) async throws -> T) async throws -> T {
        guard let storage = try await store.discover().first(where: { $0.name == service }) else {
            throw StorageError.failed("the service \(service) was created but cannot be found")
        }
        do {
            return try await storage.database.transaction { connection in
                var loader = BulkLoader(connection: connection, schema: storage.schema)
                return try await body(&loader)
            }
        } catch {
            try? await Self.remove(storage)
            throw error
        }
    }

    /// Undoes a half-made service: drops its schema, or deletes its file.
    private static func remove(_ storage: ServiceStorage) async throws {
        if let schema = storage.schema {
            try await storage.database.transaction { connection in
                try await connection.execute("DROP SCHEMA \(identifier: schema) CASCADE")
            }
        } else if let database = storage.database as? SQLiteDatabase {
            let path = database.path
            await database.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
}
