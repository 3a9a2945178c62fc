import Logging
import PostgresNIO
import StrataCore
import StrataSQL

/// Services as schemas of one PostgreSQL database; Strata's own tables in its schema `strata_system`,
/// unless they are placed elsewhere (``SystemPlacement``).
package final class PostgresServiceStore: ServiceStore {
    package let dialect = SQLDialect.postgres
    package let system: any Database
    package let systemSchema: String?
    package let replicatedSystem: (any Database)?
    private let database: PostgresDatabase
    private let logger: Logger

    /// - Parameters:
    ///   - control: the connection outside the pool for health checks and cancel requests (the server's);
    ///     without it both borrow pooled connections.
    ///   - scanLimit: how many scans may hold pooled connections at once; keep it below the pool's size.
    ///   - system: where Strata's own tables are when not in this database (`--system-database`).
    ///   - poolWaits: hears how long each lease waited for a connection, the services' and Strata's own.
    ///   - standbys: where the services' reads may go (`--read-replica`). Strata's own tables are always
    ///     read on the primary: access checks and sign-ins must see the latest grants and accounts.
    package init(pool: PostgresPool, counter: StatementCounter, logger: Logger, connectionWait: Duration = .seconds(10),
         control: PostgresControlConnection? = nil, scanLimit: Int = 8, system: SystemPlacement? = nil,
         poolWaits: PoolWaitRecorder = .none, standbys: StandbySet? = nil) {
        let sessions = PostgresSessions(pool: pool, control: control, logger: logger)
        self.database = PostgresDatabase(sessions: sessions, counter: counter, logger: logger,
                                         leaseTimeout: connectionWait, scanLimit: scanLimit, poolWaits: poolWaits, standbys: standbys)
        // Strata's own statements (access checks on every request) are not the services' SQL that
        // `strata_sql_statements_total` counts, so the system tables use an uncounted view of the pool.
        self.system = system?.database ?? PostgresDatabase(sessions: sessions, counter: .none, logger: logger,
                                                           leaseTimeout: connectionWait, scanLimit: scanLimit, poolWaits: poolWaits)
        self.systemSchema = system == nil ? SystemPlacement.postgresSchema : system?.schema
        // Only reads that ask with a position go to standbys through it: access checks and sign-ins
        // read ``system``, on the primary.
        self.replicatedSystem = system == nil && standbys != nil
            ? PostgresDatabase(sessions: sessions, counter: .none, logger: logger, leaseTimeout: connectionWait, scanLimit: scanLimit,
                               poolWaits: poolWaits, standbys: standbys)
            : nil
        self.logger = logger
    }

    /// A store on a client its caller runs (the command line, tests).
    convenience init(client: PostgresClient, counter: StatementCounter, logger: Logger, connectionWait: Duration = .seconds(10),
                     system: SystemPlacement? = nil) {
        self.init(pool: PostgresPool(fixed: client, logger: logger), counter: counter, logger: logger, connectionWait: connectionWait,
                  system: system)
    }

    package func discover() async throws -> [ServiceStorage] {
        let rows = try await database.read { connection in
            try await connection.query("""
                SELECT n.nspname::text,
                       EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm'))
                FROM pg_catalog.pg_namespace n
                WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname NOT IN ('information_schema', 'strata_system', 'strata_feed', 'strata_sync')
                ORDER BY n.nspname
                """, types: [.string, .boolean])
        }
        var services: [ServiceStorage] = []
        for row in rows.rows {
            guard let name = row[0].stringValue else { continue }
            // `public` exists in every database; it is a service only when it holds tables.
            if name == "public" && row[1] != .boolean(true) { continue }
            guard ServiceName.isValid(name), !ServiceName.reserved.contains(name) else {
                logger.warning("Schema left out: its name cannot be a service name", metadata: ["schema": .string(name)])
                continue
            }
            services.append(ServiceStorage(name: name, database: database, schema: name, catalogReader: PostgresCatalogReader(schema: name)))
        }
        return services
    }

    package func provision(_ name: String, scripts: [SQLScript]) async throws -> Bool {
        let exists = try await database.read { connection in
            try await connection.query("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = \(bind: .string(name))")
        }
        guard exists.rows.isEmpty else { return false }
        do {
            try await database.transaction { connection in
                // The schema name is a validated service name, quoted as an identifier.
                try await connection.execute("CREATE SCHEMA \(identifier: name)")
                try await connection.execute("SET LOCAL search_path TO \(identifier: name)")
                for script in scripts {
                    for statement in script.statements {
                        try await connection.execute(statement)
                    }
                }
                try await Self.resetSequences(schema: name, connection)
            }
        } catch {
            // Another process may have created the schema at the same moment.
            let created = try await database.read { connection in
                try await connection.query("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = \(bind: .string(name))")
            }
            if !created.rows.isEmpty { return false }
            throw error
        }
        return true
    }

    /// Scripts may insert explicit ids into identity and serial columns; move each sequence past
    /// the highest id so the next insert does not collide.
    package static func resetSequences(schema: String, _ connection: any DatabaseConnection) async throws {
        let tables = try await PostgresCatalogReader(schema: schema).readTables(connection)
        for table in tables where !table.isView {
            for column in table.columns where column.isServerGenerated && (column.type?.isIntegral ?? false) {
                let qualified = TableName(schema: schema, name: table.name)
                // pg_get_serial_sequence takes the table's name as text, quoted as in SQL.
                let quotedName = SQLDialect.postgres.quote(schema) + "." + SQLDialect.postgres.quote(table.name)
                try await connection.execute("""
                    SELECT setval(pg_get_serial_sequence(\(bind: .string(quotedName)), \(bind: .string(column.name))), \
                    (SELECT COALESCE(MAX(\(identifier: column.name)), 0) + 1 FROM \(qualified)), false)
                    """)
            }
        }
    }

    package func close() async {
        await (database.sessions.control)?.close()
        // A system database elsewhere may be a SQLite file, which closes here; a pool closes with its service.
        await system.close()
    }
}
