import Logging
import StrataCore
import StrataSQL

/// Strata's own tables (service settings; later accounts, grants, tokens), kept beside the services:
/// a SQLite file in the data directory or the `strata_system` schema on PostgreSQL.
///
/// The schema evolves through numbered migrations recorded in `strata_migrations`; each runs once,
/// in its own transaction.
struct SystemDatabase: Sendable {
    let database: any Database
    let schema: String?

    var dialect: SQLDialect { database.dialect }

    /// A system table, schema-qualified on PostgreSQL (`strata_system`), bare on SQLite.
    func table(_ name: String) -> TableName {
        TableName(schema: schema, name: name)
    }


    /// Migrations in order, each identified by a stable name. New ones are appended (features may
    /// add theirs in their own files and list them here); existing ones never change.
    var migrations: [SystemMigration] {
        serviceSettingsMigrations + writesMigrations + accountMigrations + pageSizeMigrations + blobMigrations + issuerRuleMigrations
    }

    func migrate(logger: Logger) async throws {
        if let schema {
            try await database.transaction { connection in
                try await connection.execute("CREATE SCHEMA IF NOT EXISTS \(identifier: schema)")
            }
        }
        let applied = try await database.transaction { connection -> Set<String> in
            try await connection.execute("CREATE TABLE IF NOT EXISTS \(table("strata_migrations")) (\"id\" VARCHAR(128) NOT NULL PRIMARY KEY)")
            let rows = try await connection.query("SELECT \"id\" FROM \(table("strata_migrations"))", types: [.string])
            return Set(rows.rows.compactMap { $0[0].stringValue })
        }
        for migration in migrations where !applied.contains(migration.id) {
            try await database.transaction { connection in
                for statement in migration.statements {
                    try await connection.execute(statement)
                }
                try await connection.execute("INSERT INTO \(table("strata_migrations")) (\"id\") VALUES (\(bind: .string(migration.id)))")
            }
            logger.info("Applied system migration", metadata: ["migration": .string(migration.id)])
        }
    }
}

struct SystemMigration: Sendable {
    /// A stable name, `<feature>.<n>`, recorded once the migration has run.
    var id: String
    var statements: [SQL]
}
