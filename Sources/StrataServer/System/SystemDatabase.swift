import Logging
import StrataCore

/// Strata's own tables (service settings; later accounts, grants, tokens), kept beside the services:
/// a SQLite file in the data directory or the `strata_system` schema on PostgreSQL.
///
/// The schema evolves through numbered migrations recorded in `strata_migrations`; each runs once,
/// in its own transaction.
struct SystemDatabase: Sendable {
    let database: any Database
    let schema: String?

    var dialect: SQLDialect { database.dialect }

    func table(_ name: String) -> TableName {
        TableName(schema: schema, name: name)
    }

    /// The qualified, quoted name of a system table, for statements written in this file's code.
    func quoted(_ name: String) -> String {
        let table = dialect.quote(name)
        guard let schema else { return table }
        return dialect.quote(schema) + "." + table
    }

    /// Migrations in order, each identified by a stable name. New ones are appended (features may
    /// add theirs in their own files and list them here); existing ones never change.
    var migrations: [SystemMigration] {
        serviceSettingsMigrations + writesMigrations + accountMigrations + blobMigrations
    }

    private var serviceSettingsMigrations: [SystemMigration] {
        [
            SystemMigration(id: "services.1", statements: [
                """
                CREATE TABLE \(quoted("service_settings")) (
                    "service" VARCHAR(128) NOT NULL PRIMARY KEY,
                    "namespace" VARCHAR(128),
                    "title" VARCHAR(256)
                )
                """,
            ]),
        ]
    }

    func migrate(logger: Logger) async throws {
        if let schema {
            try await database.transaction { connection in
                try await connection.execute(SQLStatement("CREATE SCHEMA IF NOT EXISTS \(dialect.quote(schema))"))
            }
        }
        let applied = try await database.transaction { connection -> Set<String> in
            try await connection.execute(SQLStatement(
                "CREATE TABLE IF NOT EXISTS \(quoted("strata_migrations")) (\"id\" VARCHAR(128) NOT NULL PRIMARY KEY)"))
            let rows = try await connection.query(SQLStatement("SELECT \"id\" FROM \(quoted("strata_migrations"))"), types: [.string])
            return Set(rows.rows.compactMap { $0[0].stringValue })
        }
        for migration in migrations where !applied.contains(migration.id) {
            try await database.transaction { connection in
                for statement in migration.statements {
                    try await connection.execute(SQLStatement(statement))
                }
                try await connection.execute(SQLStatement(
                    "INSERT INTO \(quoted("strata_migrations")) (\"id\") VALUES (\(dialect.placeholder(1)))",
                    binds: [.string(migration.id)]))
            }
            logger.info("Applied system migration", metadata: ["migration": .string(migration.id)])
        }
    }

    // MARK: Service settings

    func serviceSettings() async throws -> [String: ServiceSettings] {
        let rows = try await database.read { connection in
            try await connection.query(
                SQLStatement("SELECT \"service\", \"namespace\", \"title\" FROM \(quoted("service_settings"))"),
                types: [.string, .string, .string])
        }
        var settings: [String: ServiceSettings] = [:]
        for row in rows.rows {
            guard let service = row[0].stringValue else { continue }
            settings[service] = ServiceSettings(namespace: row[1].stringValue, title: row[2].stringValue)
        }
        for service in try await servicesRequiringIfMatch() {
            settings[service, default: ServiceSettings()].requireIfMatch = true
        }
        return settings
    }

    func saveServiceSettings(_ service: String, _ settings: ServiceSettings) async throws {
        try await database.transaction { connection in
            try await connection.execute(SQLStatement(
                "DELETE FROM \(quoted("service_settings")) WHERE \"service\" = \(dialect.placeholder(1))", binds: [.string(service)]))
            try await connection.execute(SQLStatement(
                "INSERT INTO \(quoted("service_settings")) (\"service\", \"namespace\", \"title\", \"require_if_match\") VALUES (\(dialect.placeholder(1)), \(dialect.placeholder(2)), \(dialect.placeholder(3)), \(dialect.placeholder(4)))",
                binds: [.string(service), settings.namespace.map(ODataValue.string) ?? .null, settings.title.map(ODataValue.string) ?? .null,
                        .boolean(settings.requireIfMatch)]))
        }
    }
}

struct SystemMigration: Sendable {
    /// A stable name, `<feature>.<n>`, recorded once the migration has run.
    var id: String
    var statements: [String]
}

/// Per-service settings kept in the system database.
struct ServiceSettings: Sendable, Hashable {
    /// The schema namespace of the service's types (`edmexampleModel`); the service name when nil.
    var namespace: String?
    var title: String?
    /// PUT, MERGE, PATCH and DELETE must carry `If-Match` (428 otherwise).
    var requireIfMatch = false
}
