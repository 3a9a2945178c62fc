import StrataCore
import StrataSQL

/// Per-service settings kept in the system database.
public struct ServiceSettings: Sendable, Hashable {
    /// The schema namespace of the service's types (`edmexampleModel`); the service name when nil.
    public var namespace: String?
    public var title: String?
    /// PUT, MERGE, PATCH and DELETE must carry `If-Match` (428 otherwise).
    public var requireIfMatch = false
    /// Rows per response before a `__next` link; the server's `--page-size` when nil.
    public var pageSize: Int?
    /// The longest one statement of this service may run, in milliseconds; 0 is no limit, and nil
    /// the server's `--statement-timeout`.
    public var statementTimeoutMilliseconds: Int?
    /// Inserts may give values for keys the database generates (identity, serial, autoincrement);
    /// by default they are refused with 400 and the database assigns every such key. See
    /// `SystemDatabase+ClientKeys.swift`.
    public var allowClientKeys = false
    /// The OData version a request that names none is answered in: V2 (the default, so existing
    /// clients see no change) or V4. A request that names a version gets it either way.
    public var odataVersion: ODataVersion = .v2

    public init(namespace: String? = nil, title: String? = nil, requireIfMatch: Bool = false, pageSize: Int? = nil,
                statementTimeoutMilliseconds: Int? = nil, allowClientKeys: Bool = false, odataVersion: ODataVersion = .v2) {
        self.namespace = namespace
        self.title = title
        self.requireIfMatch = requireIfMatch
        self.pageSize = pageSize
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.allowClientKeys = allowClientKeys
        self.odataVersion = odataVersion
    }

    /// The statement timeout this service's requests run under, given the server's.
    package func statementTimeout(server: Duration?) -> Duration? {
        guard let milliseconds = statementTimeoutMilliseconds else { return server }
        return milliseconds == 0 ? nil : .milliseconds(milliseconds)
    }
}

/// The `service_settings` table: one row per service that has settings; a service without one
/// uses the defaults.
extension SystemDatabase {
    var serviceSettingsMigrations: [SystemMigration] {
        [
            SystemMigration(id: "services.1", statements: [
                """
                CREATE TABLE \(table("service_settings")) (
                    "service" VARCHAR(128) NOT NULL PRIMARY KEY,
                    "namespace" VARCHAR(128),
                    "title" VARCHAR(256)
                )
                """,
            ]),
        ]
    }

    /// Added after the writes' column, so it is listed after `writes.1`.
    var pageSizeMigrations: [SystemMigration] {
        [
            SystemMigration(id: "services.2", statements: ["ALTER TABLE \(table("service_settings")) ADD COLUMN \"page_size\" INTEGER"]),
            SystemMigration(id: "services.3", statements: [
                "ALTER TABLE \(table("service_settings")) ADD COLUMN \"statement_timeout_ms\" INTEGER",
            ]),
        ]
    }

    /// The default OData version, listed last: added with OData V4 (issue 38).
    var odataVersionMigrations: [SystemMigration] {
        [
            SystemMigration(id: "services.5", statements: [
                "ALTER TABLE \(table("service_settings")) ADD COLUMN \"odata_version\" INTEGER",
            ]),
        ]
    }

    package func serviceSettings() async throws -> [String: ServiceSettings] {
        try await database.read { connection in try await serviceSettings(connection) }
    }

    private func serviceSettings(_ connection: any DatabaseConnection) async throws -> [String: ServiceSettings] {
        let rows = try await connection.query(
            """
                SELECT "service", "namespace", "title", "require_if_match", "page_size", "statement_timeout_ms", \
                "allow_client_keys", "odata_version" FROM \(table("service_settings"))
                """,
            types: [.string, .string, .string, .boolean, .int64, .int64, .boolean, .int64])
        var settings: [String: ServiceSettings] = [:]
        for row in rows.rows {
            guard let service = row[0].stringValue else { continue }
            var pageSize: Int?, timeout: Int?
            if case .int64(let size) = row[4] { pageSize = Int(size) }
            if case .int64(let milliseconds) = row[5] { timeout = Int(milliseconds) }
            settings[service] = ServiceSettings(namespace: row[1].stringValue, title: row[2].stringValue,
                                                requireIfMatch: row[3] == .boolean(true), pageSize: pageSize,
                                                statementTimeoutMilliseconds: timeout, allowClientKeys: row[6] == .boolean(true),
                                                odataVersion: row[7] == .int64(4) ? .v4 : .v2)
        }
        return settings
    }

    /// Replaces one service's settings. Like every settings write, it announces
    /// ``SystemChange/services`` in its transaction, so that every server on a PostgreSQL system
    /// database loads its services again once it commits.
    package func saveServiceSettings(_ service: String, _ settings: ServiceSettings) async throws {
        try await database.transaction { connection in try await save(service, settings, connection) }
    }

    /// Changes one service's settings in one transaction, starting from its current ones; announced
    /// as ``saveServiceSettings(_:_:)`` is.
    @discardableResult
    package func updateServiceSettings(_ service: String, _ change: @escaping @Sendable (inout ServiceSettings) -> Void) async throws -> ServiceSettings {
        try await database.transaction { connection in
            var settings = try await serviceSettings(connection)[service] ?? ServiceSettings()
            change(&settings)
            try await save(service, settings, connection)
            return settings
        }
    }

    private func save(_ service: String, _ settings: ServiceSettings, _ connection: any DatabaseConnection) async throws {
        try await connection.execute("DELETE FROM \(table("service_settings")) WHERE \"service\" = \(bind: .string(service))")
        let values: [ODataValue] = [
            .string(service), settings.namespace.map(ODataValue.string) ?? .null, settings.title.map(ODataValue.string) ?? .null,
            .boolean(settings.requireIfMatch), settings.pageSize.map { .int64(Int64($0)) } ?? .null,
            settings.statementTimeoutMilliseconds.map { .int64(Int64($0)) } ?? .null, .boolean(settings.allowClientKeys),
            settings.odataVersion == .v4 ? .int64(4) : .null,
        ]
        try await connection.execute("""
            INSERT INTO \(table("service_settings")) \
            ("service", "namespace", "title", "require_if_match", "page_size", "statement_timeout_ms", "allow_client_keys", "odata_version") \
            VALUES (\(SQL.binds(values)))
            """)
        try await announce(.services, on: connection)
    }
}
