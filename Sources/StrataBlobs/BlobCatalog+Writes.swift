import StrataCore
import StrataSQL
import StrataStorage

extension BlobCatalog {
    // MARK: Containers

    /// Creates a container; answers false when one of that name exists already (left unchanged).
    package func createContainer(_ name: String, access: ContainerAccess, now: Int64) async throws -> Bool {
        let table = q("blob_containers")
        let statement = SQLStatement("INSERT INTO \(table) (\"name\", \"access\", \"created_at\") VALUES (\(bind: .string(name)), \(bind: .string(access.rawValue)), \(bind: .int64(now))) ON CONFLICT (\"name\") DO NOTHING RETURNING \"name\"", dialect: dialect)
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }

    /// Changes who may read a container anonymously; false when there is no such container.
    func setAccess(_ name: String, _ access: ContainerAccess) async throws -> Bool {
        let statement = SQLStatement("UPDATE \(q("blob_containers")) SET \"access\" = \(bind: .string(access.rawValue)) WHERE \"name\" = \(bind: .string(name)) RETURNING \"name\"", dialect: dialect)
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }

    enum ContainerRemoval: Sendable {
        case missing
        case notEmpty
        /// Removed; the objects of its blobs are to be deleted from the store.
        case removed(objects: [String])
    }

    /// Removes a container with its grants; with `force`, its blobs too. One transaction: an upload
    /// committing at the same moment either lands before (and is removed) or fails on the missing container.
    func removeContainer(_ name: String, force: Bool) async throws -> ContainerRemoval {
        let containers = q("blob_containers"), blobs = q("blobs"), grants = q("container_grants")
        let name = ODataValue.string(name)
        return try await database.transaction { connection -> ContainerRemoval in
            let existing = try await connection.query("SELECT 1 FROM \(containers) WHERE \"name\" = \(bind: name)")
            guard !existing.rows.isEmpty else { return .missing }
            if !force {
                let any = try await connection.query("SELECT 1 FROM \(blobs) WHERE \"container\" = \(bind: name) LIMIT 1")
                guard any.rows.isEmpty else { return .notEmpty }
            }
            let removed = try await connection.query("DELETE FROM \(blobs) WHERE \"container\" = \(bind: name) RETURNING \"object\"", types: [.string])
            try await connection.execute("DELETE FROM \(grants) WHERE \"container\" = \(bind: name)")
            try await connection.execute("DELETE FROM \(containers) WHERE \"name\" = \(bind: name)")
            return .removed(objects: removed.rows.compactMap { $0[0].stringValue })
        }
    }

    // MARK: Blobs

    /// Makes `record` the blob of its name if the blob is still `current`: absent when `current`
    /// is nil, otherwise still naming `current.object`. Answers false when someone else changed
    /// the blob in between (the caller reads again and decides again).
    ///
    /// One statement either way, so the check and the change are atomic on both databases:
    /// `INSERT … ON CONFLICT DO NOTHING` for a new name, `UPDATE … WHERE "object" = old` for a replacement.
    package func swap(_ record: BlobRecord, replacing current: BlobRecord?) async throws -> Bool {
        let values: [ODataValue] = [.string(record.object), .int64(record.size), .string(record.sha256),
                                    .string(record.contentType), .int64(record.modifiedAt)]
        let statement: SQLStatement
        if let current {
            statement = SQLStatement(
                """
                UPDATE \(q("blobs")) SET "object" = \(bind: values[0]), "size" = \(bind: values[1]), "sha256" = \(bind: values[2]), \
                "content_type" = \(bind: values[3]), "modified_at" = \(bind: values[4]) \
                WHERE "container" = \(bind: .string(record.container)) AND "name" = \(bind: .string(record.name)) \
                AND "object" = \(bind: .string(current.object)) RETURNING "object"
                """, dialect: dialect)
        } else {
            statement = SQLStatement(
                """
                INSERT INTO \(q("blobs")) (\(Self.blobColumns)) VALUES (\(SQL.binds([.string(record.container), .string(record.name)] + values)))
                ON CONFLICT ("container", "name") DO NOTHING RETURNING "object"
                """, dialect: dialect)
        }
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }

    /// Removes the blob if it still names `object`; false when it changed or went meanwhile.
    func remove(_ record: BlobRecord) async throws -> Bool {
        let statement = SQLStatement("DELETE FROM \(q("blobs")) WHERE \"container\" = \(bind: .string(record.container)) AND \"name\" = \(bind: .string(record.name)) AND \"object\" = \(bind: .string(record.object)) RETURNING \"object\"", dialect: dialect)
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }
}
