import StrataCore

/// Settings of the write path kept with each service's settings: whether changes must carry
/// `If-Match` (428 Precondition Required when they do not).
extension SystemDatabase {
    var writesMigrations: [SystemMigration] {
        [
            SystemMigration(id: "writes.1", statements: [
                "ALTER TABLE \(quoted("service_settings")) ADD COLUMN \"require_if_match\" BOOLEAN NOT NULL DEFAULT FALSE",
            ]),
        ]
    }

    /// Services whose changes must carry `If-Match`.
    func servicesRequiringIfMatch() async throws -> Set<String> {
        let rows = try await database.read { connection in
            try await connection.query(
                SQLStatement("SELECT \"service\" FROM \(quoted("service_settings")) WHERE \"require_if_match\" = \(dialect.placeholder(1))",
                             binds: [.boolean(true)]),
                types: [.string])
        }
        return Set(rows.rows.compactMap { $0[0].stringValue })
    }

    /// Turns the If-Match requirement of a service on or off (the service's settings row is created if missing).
    func setRequireIfMatch(_ service: String, _ required: Bool) async throws {
        try await database.transaction { connection in
            let existing = try await connection.query(SQLStatement(
                "SELECT 1 FROM \(quoted("service_settings")) WHERE \"service\" = \(dialect.placeholder(1))", binds: [.string(service)]))
            if existing.rows.isEmpty {
                try await connection.execute(SQLStatement(
                    "INSERT INTO \(quoted("service_settings")) (\"service\", \"require_if_match\") VALUES (\(dialect.placeholder(1)), \(dialect.placeholder(2)))",
                    binds: [.string(service), .boolean(required)]))
            } else {
                try await connection.execute(SQLStatement(
                    "UPDATE \(quoted("service_settings")) SET \"require_if_match\" = \(dialect.placeholder(1)) WHERE \"service\" = \(dialect.placeholder(2))",
                    binds: [.boolean(required), .string(service)]))
            }
        }
    }
}
