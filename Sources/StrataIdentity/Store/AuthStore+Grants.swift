import StrataCore
import StrataSQL
import StrataStorage

extension AuthStore {
    // MARK: Grants

    /// The grants of any of `roles` for `action` on `table` of `service` (including every-table grants).
    package func grants(service: String, table: String, action: TableAction, roles: Set<String>) async throws -> [TableGrant] {
        guard !roles.isEmpty else { return [] }
        return try await accessSettings.settings().grants(service: service, table: table, action: action, roles: roles)
    }

    /// Every grant of any of `roles` in `service`.
    package func grants(service: String, roles: Set<String>) async throws -> [TableGrant] {
        guard !roles.isEmpty else { return [] }
        return try await accessSettings.settings().grants(service: service, roles: roles)
    }

    /// Every grant, or those of one service.
    package func listGrants(service: String? = nil) async throws -> [TableGrant] {
        var sql: SQL = "SELECT \"role\", \"service\", \"table_name\", \"action\", \"row_filter\" FROM \(q("role_grants"))"
        if let service {
            sql += " WHERE \"service\" = \(bind: .string(service))"
        }
        sql += " ORDER BY \"service\", \"role\", \"table_name\", \"action\""
        let statement = SQLStatement(sql, dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: Self.grantTypes) }
        return rows.rows.compactMap(Self.grant)
    }

    /// Adds grants, replacing any for the same role, service, table and action (a new filter wins).
    package func putGrants(_ grants: [TableGrant]) async throws {
        let table = q("role_grants")
        try await write { connection in
            for grant in grants {
                let key: [ODataValue] = [.string(grant.role), .string(grant.service), .string(grant.table ?? Self.every),
                                         .string(grant.action.rawValue)]
                try await connection.execute(
                    "DELETE FROM \(table) WHERE \"role\" = \(bind: key[0]) AND \"service\" = \(bind: key[1]) AND \"table_name\" = \(bind: key[2]) AND \"action\" = \(bind: key[3])")
                try await connection.execute(
                    "INSERT INTO \(table) (\"role\", \"service\", \"table_name\", \"action\", \"row_filter\") VALUES (\(SQL.binds(key + [grant.rowFilter.map(ODataValue.string) ?? .null])))")
            }
        }
    }

    /// Removes a role's grants on a service, narrowed to a table and to actions when given.
    /// Answers how many were removed.
    package func removeGrants(role: String, service: String, table: String?, actions: [TableAction]?) async throws -> Int {
        var sql: SQL = "DELETE FROM \(q("role_grants")) WHERE \"role\" = \(bind: .string(role)) AND \"service\" = \(bind: .string(service))"
        if let table {
            sql += " AND \"table_name\" = \(bind: .string(table))"
        }
        if let actions, !actions.isEmpty {
            sql += " AND \"action\" IN (\(SQL.binds(actions.map { .string($0.rawValue) })))"
        }
        sql += " RETURNING \"role\""
        let statement = SQLStatement(sql, dialect: dialect)
        let rows = try await write { try await $0.query(statement) }
        return rows.rows.count
    }

    private static let grantTypes: [EDMPrimitiveType?] = [.string, .string, .string, .string, .string]

    private static func grant(_ row: [ODataValue]) -> TableGrant? {
        guard let role = row[0].stringValue, let service = row[1].stringValue, let table = row[2].stringValue,
              let action = row[3].stringValue.flatMap(TableAction.init(rawValue:)) else { return nil }
        return TableGrant(role: role, service: service, table: table == every ? nil : table, action: action,
                          rowFilter: row[4].stringValue)
    }

    // MARK: Anonymous access

    package func anonymousAccess(_ service: String) async throws -> AnonymousAccess {
        try await accessSettings.settings().anonymousAccess(service)
    }

    /// Every service with a stored setting.
    package func listAnonymousAccess() async throws -> [String: AnonymousAccess] {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \"service\", \"anonymous\" FROM \(q("service_access"))", types: [.string, .string])
        }
        return Self.anonymousSettings(rows.rows)
    }

    package func setAnonymousAccess(_ service: String, _ access: AnonymousAccess) async throws {
        try await write { connection in
            try await setAnonymousAccess(service, access, connection)
        }
    }

    /// Part of a caller's transaction, which must be a ``write(_:)``.
    package func setAnonymousAccess(_ service: String, _ access: AnonymousAccess, _ connection: any DatabaseConnection) async throws {
        let table = q("service_access")
        try await connection.execute("DELETE FROM \(table) WHERE \"service\" = \(bind: .string(service))")
        try await connection.execute("INSERT INTO \(table) (\"service\", \"anonymous\") VALUES (\(bind: .string(service)), \(bind: .string(access.rawValue)))")
    }

    // MARK: Snapshot

    /// Both tables in one read, for ``AccessSettingsCache``.
    static func readAccessSettings(_ system: SystemDatabase) async throws -> AccessSettings {
        let grantsStatement = SQLStatement("SELECT \"role\", \"service\", \"table_name\", \"action\", \"row_filter\" FROM \(system.table("role_grants"))", dialect: system.dialect)
        let accessStatement = SQLStatement("SELECT \"service\", \"anonymous\" FROM \(system.table("service_access"))", dialect: system.dialect)
        let (grants, access) = try await system.database.read { connection in
            (try await connection.query(grantsStatement, types: grantTypes), try await connection.query(accessStatement, types: [.string, .string]))
        }
        return AccessSettings(anonymous: anonymousSettings(access.rows), grants: grants.rows.compactMap(grant))
    }

    private static func anonymousSettings(_ rows: [[ODataValue]]) -> [String: AnonymousAccess] {
        var result: [String: AnonymousAccess] = [:]
        for row in rows {
            if let service = row[0].stringValue, let access = row[1].stringValue.flatMap(AnonymousAccess.init(rawValue:)) {
                result[service] = access
            }
        }
        return result
    }
}
