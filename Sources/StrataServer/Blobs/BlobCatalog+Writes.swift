import StrataCore

extension BlobCatalog {
    // MARK: Containers

    /// Creates a container; answers false when one of that name exists already (left unchanged).
    func createContainer(_ name: String, access: ContainerAccess, now: Int64) async throws -> Bool {
        let table = q("blob_containers")
        let statement = SQLStatement(
            "INSERT INTO \(table) (\"name\", \"access\", \"created_at\") VALUES (\(p(1)), \(p(2)), \(p(3))) ON CONFLICT (\"name\") DO NOTHING RETURNING \"name\"",
            binds: [.string(name), .string(access.rawValue), .int64(now)])
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }

    /// Changes who may read a container anonymously; false when there is no such container.
    func setAccess(_ name: String, _ access: ContainerAccess) async throws -> Bool {
        let statement = SQLStatement(
            "UPDATE \(q("blob_containers")) SET \"access\" = \(p(1)) WHERE \"name\" = \(p(2)) RETURNING \"name\"",
            binds: [.string(access.rawValue), .string(name)])
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
        let p1 = p(1)
        return try await database.transaction { connection -> ContainerRemoval in
            let existing = try await connection.query(SQLStatement(
                "SELECT 1 FROM \(containers) WHERE \"name\" = \(p1)", binds: [.string(name)]))
            guard !existing.rows.isEmpty else { return .missing }
            if !force {
                let any = try await connection.query(SQLStatement(
                    "SELECT 1 FROM \(blobs) WHERE \"container\" = \(p1) LIMIT 1", binds: [.string(name)]))
                guard any.rows.isEmpty else { return .notEmpty }
            }
            let removed = try await connection.query(SQLStatement(
                "DELETE FROM \(blobs) WHERE \"container\" = \(p1) RETURNING \"object\"", binds: [.string(name)]), types: [.string])
            try await connection.execute(SQLStatement("DELETE FROM \(grants) WHERE \"container\" = \(p1)", binds: [.string(name)]))
            try await connection.execute(SQLStatement("DELETE FROM \(containers) WHERE \"name\" = \(p1)", binds: [.string(name)]))
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
    func swap(_ record: BlobRecord, replacing current: BlobRecord?) async throws -> Bool {
        let values: [ODataValue] = [.string(record.object), .int64(record.size), .string(record.sha256),
                                    .string(record.contentType), .int64(record.modifiedAt)]
        let statement: SQLStatement
        if let current {
            statement = SQLStatement(
                """
                UPDATE \(q("blobs")) SET "object" = \(p(1)), "size" = \(p(2)), "sha256" = \(p(3)), "content_type" = \(p(4)), "modified_at" = \(p(5))
                WHERE "container" = \(p(6)) AND "name" = \(p(7)) AND "object" = \(p(8)) RETURNING "object"
                """,
                binds: values + [.string(record.container), .string(record.name), .string(current.object)])
        } else {
            statement = SQLStatement(
                """
                INSERT INTO \(q("blobs")) (\(Self.blobColumns)) VALUES (\(system.placeholders(7)))
                ON CONFLICT ("container", "name") DO NOTHING RETURNING "object"
                """,
                binds: [.string(record.container), .string(record.name)] + values)
        }
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }

    /// Removes the blob if it still names `object`; false when it changed or went meanwhile.
    func remove(_ record: BlobRecord) async throws -> Bool {
        let statement = SQLStatement(
            "DELETE FROM \(q("blobs")) WHERE \"container\" = \(p(1)) AND \"name\" = \(p(2)) AND \"object\" = \(p(3)) RETURNING \"object\"",
            binds: [.string(record.container), .string(record.name), .string(record.object)])
        return try await !database.transaction { try await $0.query(statement) }.rows.isEmpty
    }
}
