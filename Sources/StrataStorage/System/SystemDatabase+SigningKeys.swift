import StrataCore
import StrataSQL

/// A token signing key as the system database keeps it: its private material sealed (AES-GCM under
/// a key-encryption key the table never holds), its public side in the clear.
package struct StoredSigningKey: Sendable, Equatable {
    /// The `kid` of the tokens it signs.
    package var kid: String
    /// `HS256` or `ES256`.
    package var algorithm: String
    /// Base64 of AES-GCM's combined nonce, ciphertext and tag.
    package var sealedKey: String
    /// How the key-encryption key was obtained: `secret` (derived from the operator's secret) or
    /// `file` (`key-encryption.key` in a data directory).
    package var sealedBy: String
    /// A check value of the key-encryption key, so that a wrong one is named at start rather than
    /// found out as a failed decryption.
    package var keyCheck: String
    /// The public JWK (JSON) of an asymmetric key; nil for HMAC keys, which have no public side.
    package var publicJWK: String?
    /// Seconds since 1970.
    package var createdAt: Int64
    /// When a newer key took over signing; the key still verifies for a token lifetime after it.
    package var retiredAt: Int64?

    package init(kid: String, algorithm: String, sealedKey: String, sealedBy: String, keyCheck: String, publicJWK: String? = nil, createdAt: Int64, retiredAt: Int64? = nil) {
        self.kid = kid
        self.algorithm = algorithm
        self.sealedKey = sealedKey
        self.sealedBy = sealedBy
        self.keyCheck = keyCheck
        self.publicJWK = publicJWK
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// The table of token signing keys, shared by every server on the system database.
extension SystemDatabase {
    var signingKeyMigrations: [SystemMigration] {
        [SystemMigration(id: "keys.1", statements: [
            """
            CREATE TABLE \(table("signing_keys")) (
                "kid" VARCHAR(64) NOT NULL PRIMARY KEY,
                "algorithm" VARCHAR(16) NOT NULL,
                "sealed_key" TEXT NOT NULL,
                "sealed_by" VARCHAR(16) NOT NULL,
                "key_check" VARCHAR(64) NOT NULL,
                "public_jwk" TEXT,
                "created_at" BIGINT NOT NULL,
                "retired_at" BIGINT
            )
            """,
        ])]
    }

    /// Every stored key, newest first: by creation, and within one second the active key before the
    /// ones it replaced, then the later retired before the earlier.
    package func signingKeys() async throws -> [StoredSigningKey] {
        try await database.read { connection in try await signingKeys(connection) }
    }

    /// Runs `body` in a transaction that no other server's key change runs beside: on PostgreSQL it
    /// first takes the migrations' advisory lock (key changes are as rare as migrations, and two
    /// servers creating the first key at once must end with one); SQLite's `BEGIN IMMEDIATE`
    /// serializes writers already.
    package func changeSigningKeys<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await database.transaction { connection in
            if let schema, dialect == .postgres {
                try await connection.execute("SELECT pg_advisory_xact_lock(\(bind: .int64(Self.migrationLock(schema))))")
            }
            return try await body(connection)
        }
    }

    package func signingKeys(_ connection: any DatabaseConnection) async throws -> [StoredSigningKey] {
        let rows = try await connection.query(
            """
                SELECT "kid", "algorithm", "sealed_key", "sealed_by", "key_check", "public_jwk", "created_at", "retired_at" \
                FROM \(table("signing_keys"))
                """,
            types: [.string, .string, .string, .string, .string, .string, .int64, .int64])
        let keys = rows.rows.compactMap { row -> StoredSigningKey? in
            guard let kid = row[0].stringValue, let algorithm = row[1].stringValue, let sealed = row[2].stringValue,
                  let sealedBy = row[3].stringValue, let check = row[4].stringValue, case .int64(let created) = row[6] else { return nil }
            var retired: Int64?
            if case .int64(let value) = row[7] { retired = value }
            return StoredSigningKey(kid: kid, algorithm: algorithm, sealedKey: sealed, sealedBy: sealedBy, keyCheck: check,
                                    publicJWK: row[5].stringValue, createdAt: created, retiredAt: retired)
        }
        return keys.sorted { ($0.createdAt, $0.retiredAt ?? .max, $0.kid) > ($1.createdAt, $1.retiredAt ?? .max, $1.kid) }
    }

    package func insertSigningKey(_ key: StoredSigningKey, _ connection: any DatabaseConnection) async throws {
        let values: [ODataValue] = [
            .string(key.kid), .string(key.algorithm), .string(key.sealedKey), .string(key.sealedBy), .string(key.keyCheck),
            key.publicJWK.map(ODataValue.string) ?? .null, .int64(key.createdAt), key.retiredAt.map(ODataValue.int64) ?? .null,
        ]
        try await connection.execute("""
            INSERT INTO \(table("signing_keys")) \
            ("kid", "algorithm", "sealed_key", "sealed_by", "key_check", "public_jwk", "created_at", "retired_at") \
            VALUES (\(SQL.binds(values)))
            """)
    }

    /// Retires every active key but `kid` as of `now`.
    package func retireSigningKeys(except kid: String, now: Int64, _ connection: any DatabaseConnection) async throws {
        try await connection.execute("""
            UPDATE \(table("signing_keys")) SET "retired_at" = \(bind: .int64(now)) \
            WHERE "retired_at" IS NULL AND "kid" <> \(bind: .string(kid))
            """)
    }

    /// Deletes the keys retired before `cutoff`: no token they signed is valid any more.
    package func deleteSigningKeys(retiredBefore cutoff: Int64, _ connection: any DatabaseConnection) async throws {
        try await connection.execute("DELETE FROM \(table("signing_keys")) WHERE \"retired_at\" < \(bind: .int64(cutoff))")
    }
}
