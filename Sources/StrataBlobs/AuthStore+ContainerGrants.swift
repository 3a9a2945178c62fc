import StrataCore
import StrataSQL
import StrataIdentity
import StrataStorage

/// Container grants in the system database (`container_grants`, see `BlobMigrations.swift`).
extension AuthStore {
    /// Whether any of `roles` was granted `action` on `container` or on every container.
    func hasContainerGrant(_ action: BlobAction, container: String, roles: Set<String>) async throws -> Bool {
        guard !roles.isEmpty else { return false }
        let sorted = roles.sorted()
        let statement = SQLStatement(
            """
            SELECT 1 FROM \(q("container_grants")) WHERE "action" = \(bind: .string(action.rawValue)) \
            AND ("container" = \(bind: .string(container)) OR "container" = \(bind: .string(Self.every))) \
            AND "role" IN (\(SQL.binds(sorted.map(ODataValue.string))))
            """, dialect: dialect)
        return try await !database.read { try await $0.query(statement) }.rows.isEmpty
    }

    /// The containers any of `roles` may do `action` in; `*` among them means every container.
    func grantedContainers(_ action: BlobAction, roles: Set<String>) async throws -> Set<String> {
        guard !roles.isEmpty else { return [] }
        let sorted = roles.sorted()
        let statement = SQLStatement(
            "SELECT \"container\" FROM \(q("container_grants")) WHERE \"action\" = \(bind: .string(action.rawValue)) AND \"role\" IN (\(SQL.binds(sorted.map(ODataValue.string))))",
            dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: [.string]) }
        return Set(rows.rows.compactMap { $0[0].stringValue })
    }

    package func listContainerGrants() async throws -> [ContainerGrant] {
        let statement = SQLStatement("SELECT \"role\", \"container\", \"action\" FROM \(q("container_grants")) ORDER BY \"container\", \"role\", \"action\"", dialect: dialect)
        let rows = try await database.read { try await $0.query(statement, types: [.string, .string, .string]) }
        return rows.rows.compactMap { row in
            guard let role = row[0].stringValue, let container = row[1].stringValue,
                  let action = row[2].stringValue.flatMap(BlobAction.init(rawValue:)) else { return nil }
            return ContainerGrant(role: role, container: container == Self.every ? nil : container, action: action)
        }
    }

    /// Adds grants; one that exists already stays as it is.
    package func putContainerGrants(_ grants: [ContainerGrant]) async throws {
        let table = q("container_grants")
        try await write { connection in
            for grant in grants {
                let values: [ODataValue] = [.string(grant.role), .string(grant.container ?? Self.every), .string(grant.action.rawValue)]
                try await connection.execute(
                    "INSERT INTO \(table) (\"role\", \"container\", \"action\") VALUES (\(SQL.binds(values))) ON CONFLICT DO NOTHING")
            }
        }
    }

    /// Removes a role's grants on a container (`nil`: the every-container grants), all actions or
    /// some. Answers how many were removed.
    package func removeContainerGrants(role: String, container: String?, actions: [BlobAction]?) async throws -> Int {
        var sql: SQL = "DELETE FROM \(q("container_grants")) WHERE \"role\" = \(bind: .string(role)) AND \"container\" = \(bind: .string(container ?? Self.every))"
        if let actions, !actions.isEmpty {
            sql += " AND \"action\" IN (\(SQL.binds(actions.map { .string($0.rawValue) })))"
        }
        sql += " RETURNING \"role\""
        let statement = SQLStatement(sql, dialect: dialect)
        return try await write { try await $0.query(statement) }.rows.count
    }
}
