import Foundation
import Logging
import PostgresNIO

/// Where Strata's own tables (accounts, grants, service settings, blob names) are kept.
///
/// By default they live beside the services: `strata_system.sqlite` in the data directory, or the
/// schema `strata_system` of the served PostgreSQL database, which Strata creates there on its first
/// start. Serving someone else's PostgreSQL database, perhaps as a role that may only read it, they
/// belong elsewhere: `--system-database` names a SQLite file or another PostgreSQL database (where
/// they are in the schema `strata_system` too), and nothing is created in the served database.
package struct SystemPlacement: Sendable {
    var database: any Database
    /// The schema of Strata's tables on PostgreSQL; nil in a SQLite file.
    var schema: String?

    /// The schema Strata's tables are in, in any PostgreSQL database.
    static let postgresSchema = "strata_system"

    /// Opens the system database a server keeps open while it runs. A PostgreSQL pool is returned
    /// as well: the server runs it as one of its services.
    package static func open(_ location: DatabaseLocation, connections: Int, connectionWait: Duration,
                     logger: Logger) async throws -> (placement: SystemPlacement, pool: PostgresPool?) {
        switch location {
        case .sqliteFile(let path):
            return (try await openSQLite(path, logger: logger), nil)
        case .postgres(let location):
            // A separate system database has no control connection to follow a failover with.
            guard !location.hasSeveralHosts else {
                throw ConfigurationError("--system-database takes one host; several hosts (a failover) are for --database, which holds the system tables by default")
            }
            let pool = PostgresPool(configuration: location.clientConfiguration(keepingOpen: connections), logger: logger)
            return (postgres(pool, connectionWait: connectionWait, scanLimit: max(1, connections - 1), logger: logger), pool)
        }
    }

    /// Runs `body` with the system database at `location` open, for commands that run and exit.
    static func with<T: Sendable>(_ location: DatabaseLocation, logger: Logger,
                                  _ body: @Sendable (SystemPlacement) async throws -> T) async throws -> T {
        switch location {
        case .sqliteFile(let path):
            let placement = try await openSQLite(path, logger: logger)
            do {
                let result = try await body(placement)
                await placement.database.close()
                return result
            } catch {
                await placement.database.close()
                throw error
            }
        case .postgres(let location):
            return try await location.withClient(logger: logger) { client in
                try await body(postgres(PostgresPool(fixed: client, logger: logger), connectionWait: .seconds(10), scanLimit: 8, logger: logger))
            }
        }
    }

    private static func openSQLite(_ path: String, logger: Logger) async throws -> SystemPlacement {
        do {
            // Not counted: `strata_sql_statements_total` counts the services' SQL, not Strata's own.
            return SystemPlacement(database: try await SQLiteDatabase.open(path: path, readers: 2, scanners: 1, counter: .none, logger: logger),
                                   schema: nil)
        } catch {
            throw ConfigurationError("cannot open the system database \(path) (--system-database): \(error)")
        }
    }

    private static func postgres(_ pool: PostgresPool, connectionWait: Duration, scanLimit: Int, logger: Logger) -> SystemPlacement {
        let sessions = PostgresSessions(pool: pool, control: nil, logger: logger)
        return SystemPlacement(
            database: PostgresDatabase(sessions: sessions, counter: .none, logger: logger, leaseTimeout: connectionWait, scanLimit: scanLimit),
            schema: postgresSchema)
    }
}
