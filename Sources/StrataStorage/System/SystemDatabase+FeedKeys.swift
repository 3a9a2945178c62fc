import StrataCore
import StrataSQL

/// A key that authenticates change-feed tokens (delta links, `$tables` tokens, event ids).
package struct StoredFeedKey: Sendable, Equatable {
    /// The id a token names its key by.
    package var id: UInt32
    /// 32 bytes, as hex.
    package var keyHex: String
    /// Seconds since 1970.
    var createdAt: Int64
    /// When a newer key took over; tokens it authenticated verify for the retention after that.
    package var retiredAt: Int64?

    package init(id: UInt32, keyHex: String, createdAt: Int64, retiredAt: Int64? = nil) {
        self.id = id
        self.keyHex = keyHex
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// The table of feed token keys, shared by every server on the system database.
///
/// Kept apart from the token signing keys (``StoredSigningKey``): those retire one access-token
/// lifetime after a rotation, a delta token lives as long as the change retention (30 days by
/// default). Stored unsealed, unlike signing keys: a feed key authenticates a cursor and the
/// fingerprints of a query and of the caller's rights, and grants nothing — every delta is read
/// again under the caller's current rights — so a stolen key lets its holder forge only a token
/// that answers them what they may read anyway.
extension SystemDatabase {
    var feedKeyMigrations: [SystemMigration] {
        [SystemMigration(id: "feedkeys.1", statements: [
            """
            CREATE TABLE \(table("feed_keys")) (
                "id" BIGINT NOT NULL PRIMARY KEY,
                "key_hex" VARCHAR(64) NOT NULL,
                "created_at" BIGINT NOT NULL,
                "retired_at" BIGINT
            )
            """,
        ])]
    }

    /// Every stored feed key, newest first.
    package func feedKeys() async throws -> [StoredFeedKey] {
        try await database.read { connection in try await feedKeys(connection) }
    }

    func feedKeys(_ connection: any DatabaseConnection) async throws -> [StoredFeedKey] {
        let rows = try await connection.query(
            "SELECT \"id\", \"key_hex\", \"created_at\", \"retired_at\" FROM \(table("feed_keys"))",
            types: [.int64, .string, .int64, .int64])
        let keys = rows.rows.compactMap { row -> StoredFeedKey? in
            guard case .int64(let id) = row[0], let hex = row[1].stringValue, case .int64(let created) = row[2],
                  let id32 = UInt32(exactly: id) else { return nil }
            var retired: Int64?
            if case .int64(let value) = row[3] { retired = value }
            return StoredFeedKey(id: id32, keyHex: hex, createdAt: created, retiredAt: retired)
        }
        return keys.sorted { ($0.retiredAt == nil ? 1 : 0, $0.createdAt, $0.id) > ($1.retiredAt == nil ? 1 : 0, $1.createdAt, $1.id) }
    }

    /// Stores `key` and retires every other active key, in one transaction that no other server's
    /// key change runs beside (``changeSigningKeys(_:)``'s lock).
    package func addFeedKey(_ key: StoredFeedKey, retiringOthers: Bool) async throws {
        try await changeSigningKeys { connection in
            if !retiringOthers, try await feedKeys(connection).contains(where: { $0.retiredAt == nil }) { return }
            try await connection.execute("""
                UPDATE \(table("feed_keys")) SET "retired_at" = \(bind: .int64(key.createdAt)) WHERE "retired_at" IS NULL
                """)
            try await connection.execute("""
                INSERT INTO \(table("feed_keys")) ("id", "key_hex", "created_at", "retired_at") \
                VALUES (\(bind: .int64(Int64(key.id))), \(bind: .string(key.keyHex)), \(bind: .int64(key.createdAt)), NULL)
                """)
            try await announce(.keys, on: connection)
        }
    }

    /// Deletes the keys retired before `cutoff`.
    package func deleteFeedKeys(retiredBefore cutoff: Int64) async throws {
        try await database.transaction { connection in
            try await connection.execute("DELETE FROM \(table("feed_keys")) WHERE \"retired_at\" < \(bind: .int64(cutoff))")
        }
    }
}
