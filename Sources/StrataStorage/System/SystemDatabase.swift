import Logging
import StrataCore
import StrataSQL

/// Strata's own tables (service settings; later accounts, grants, tokens), kept beside the services:
/// a SQLite file in the data directory or the `strata_system` schema on PostgreSQL.
///
/// The schema evolves through numbered migrations recorded in `strata_migrations`; each runs once,
/// in its own transaction, which checks again that it has not run and applies it whole. Servers
/// that start at the same moment on one database take turns: on PostgreSQL every migration
/// transaction first takes a transaction-scoped advisory lock (``migrationLock``); on SQLite each
/// is a `BEGIN IMMEDIATE` transaction, which holds the file's write lock from its first statement.
package struct SystemDatabase: Sendable {
    package let database: any Database
    package let schema: String?

    package init(database: any Database, schema: String? = nil) {
        self.database = database
        self.schema = schema
    }

    package var dialect: SQLDialect { database.dialect }

    /// A system table, schema-qualified on PostgreSQL (`strata_system`), bare on SQLite.
    package func table(_ name: String) -> TableName {
        TableName(schema: schema, name: name)
    }


    /// Migrations in order, each identified by a stable name. New ones are appended (features may
    /// add theirs in their own files and list them here); existing ones never change.
    var migrations: [SystemMigration] {
        serviceSettingsMigrations + writesMigrations + accountMigrations + pageSizeMigrations + blobMigrations + issuerRuleMigrations
            + clientKeyMigrations + serviceModelMigrations + signingKeyMigrations + loginFailureMigrations + feedKeyMigrations
            + signInMigrations + odataVersionMigrations
    }

    /// Creates the system tables, or brings them up to date.
    ///
    /// - Returns: whether the PostgreSQL schema of the system tables was created now (it was not
    ///   there before, so Strata has just added it to the database).
    @discardableResult
    package func migrate(logger: Logger) async throws -> Bool {
        var created = false
        if let schema {
            created = try await database.transaction { connection in
                try await lockMigrations(connection)
                let exists = try await connection.query("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = \(bind: .string(schema))")
                guard exists.rows.isEmpty else { return false }
                // Asked first: after a refused statement, the transaction answers nothing more.
                let database = try await connection.query("SELECT current_database()::text", types: [.string]).rows.first?[0].stringValue
                do {
                    try await connection.execute("CREATE SCHEMA IF NOT EXISTS \(identifier: schema)")
                } catch StorageError.permissionDenied(let message) {
                    throw ConfigurationError("""
                        Strata keeps its own tables (accounts, grants, settings) in the schema \(schema), and cannot create it in \
                        the database \(database ?? "it serves") (\(message)). Keep them elsewhere with --system-database \
                        (a SQLite file or another PostgreSQL database), or let the role create the schema.
                        """)
                }
                return true
            }
        }
        let applied = try await database.transaction { connection -> Set<String> in
            try await lockMigrations(connection)
            try await connection.execute("CREATE TABLE IF NOT EXISTS \(table("strata_migrations")) (\"id\" VARCHAR(128) NOT NULL PRIMARY KEY)")
            let rows = try await connection.query("SELECT \"id\" FROM \(table("strata_migrations"))", types: [.string])
            return Set(rows.rows.compactMap { $0[0].stringValue })
        }
        var ran: [String] = []
        for migration in migrations where !applied.contains(migration.id) {
            let ranNow = try await database.transaction { connection -> Bool in
                try await lockMigrations(connection)
                // Another server may have applied it since `applied` was read.
                let done = try await connection.query(
                    "SELECT 1 FROM \(table("strata_migrations")) WHERE \"id\" = \(bind: .string(migration.id))")
                guard done.rows.isEmpty else { return false }
                for statement in migration.statements {
                    try await connection.execute(statement)
                }
                try await connection.execute("INSERT INTO \(table("strata_migrations")) (\"id\") VALUES (\(bind: .string(migration.id)))")
                return true
            }
            if ranNow {
                ran.append(migration.id)
                logger.debug("Applied system migration", metadata: ["migration": .string(migration.id)])
            }
        }
        // One line for a new or upgraded system database; which migrations ran is at debug.
        if !ran.isEmpty {
            logger.info("System tables brought up to date", metadata: ["migrations": .stringConvertible(ran.count)])
        }
        return created
    }

    /// On PostgreSQL, waits for the migration lock of this schema, held until the transaction
    /// ends; nothing on SQLite, whose `BEGIN IMMEDIATE` already serializes the transactions.
    private func lockMigrations(_ connection: any DatabaseConnection) async throws {
        guard let schema, dialect == .postgres else { return }
        try await connection.execute("SELECT pg_advisory_xact_lock(\(bind: .int64(Self.migrationLock(schema))))")
    }

    /// The advisory lock key of a system schema's migrations: a stable 64-bit FNV-1a hash of
    /// `strata.migrations:<schema>`, the same in every server (Swift's `Hasher` is seeded per process).
    static func migrationLock(_ schema: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "strata.migrations:\(schema)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Where the system tables are, for the log line at start: `the schema strata_system of the
    /// PostgreSQL database shop`, `the SQLite file ./strata-data/strata_system.sqlite`.
    package func place() async throws -> String {
        if let schema {
            let rows = try await database.read { connection in
                try await connection.query("SELECT current_database()::text", types: [.string])
            }
            return "the schema \(schema) of the PostgreSQL database \(rows.rows.first?[0].stringValue ?? "?")"
        }
        if let file = database as? SQLiteDatabase { return "the SQLite file \(file.path)" }
        return "the system database"
    }
}

struct SystemMigration: Sendable {
    /// A stable name, `<feature>.<n>`, recorded once the migration has run.
    var id: String
    var statements: [SQL]
}
