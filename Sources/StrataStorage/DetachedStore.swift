import Foundation
import Logging
import PostgresNIO

/// The store of a configuration's data opened without a server, for commands that run and exit
/// (`strata user …`, `strata demo-data`): SQLite files in the data directory (or one file), or a
/// PostgreSQL database through a pool that opens connections on demand; Strata's own tables beside
/// them, or in the system database given (`--system-database`, ``SystemPlacement``).
package enum DetachedStore {
    /// Runs `body` with the store open, and closes it afterwards whether `body` succeeds or not.
    package static func with<T: Sendable>(
        directory: URL, database: DatabaseLocation?, system: DatabaseLocation? = nil, logger: Logger,
        _ body: @Sendable (any ServiceStore) async throws -> T
    ) async throws -> T {
        guard let system else {
            return try await with(directory: directory, database: database, placement: nil, logger: logger, body)
        }
        return try await SystemPlacement.with(system, logger: logger) { placement in
            try await with(directory: directory, database: database, placement: placement, logger: logger, body)
        }
    }

    private static func with<T: Sendable>(
        directory: URL, database: DatabaseLocation?, placement: SystemPlacement?, logger: Logger,
        _ body: @Sendable (any ServiceStore) async throws -> T
    ) async throws -> T {
        switch database {
        case nil, .sqliteFile:
            var single: URL?
            if case .sqliteFile(let path) = database { single = URL(fileURLWithPath: path) }
            let store = try await SQLiteServiceStore.open(directory: directory, singleFile: single, counter: .none, logger: logger,
                                                          system: placement)
            do {
                let result = try await body(store)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        case .postgres(let location):
            return try await location.withClient(logger: logger) { client in
                try await body(PostgresServiceStore(client: client, counter: .none, logger: logger, system: placement))
            }
        }
    }
}
