import StrataCore

/// A sign-in and the family of refresh tokens it issued.
struct StoredSession: Sendable {
    var id: String
    /// The account name, or the `sub` of an external token.
    var subject: String
    /// The trusted issuer for a session opened by token exchange; nil for an account's session.
    var issuer: String?
    /// The external token's claims (JSON object text) for an exchanged session.
    var claims: String?
    var createdAt: Int64
    var expiresAt: Int64
    var revokedAt: Int64?

    func isActive(at now: Int64) -> Bool { revokedAt == nil && now < expiresAt }
}

/// What presenting a refresh token led to.
enum RefreshOutcome: Sendable {
    /// The token was current; it is now used and `newHash` is the family's current token.
    case rotated(StoredSession)
    /// No such token.
    case unknown
    /// The token had been used before: the family is revoked now.
    case reused
    /// The family was revoked or has expired.
    case ended
}

extension AuthStore {
    private static let sessionColumns = "\"id\", \"subject\", \"issuer\", \"claims\", \"created_at\", \"expires_at\", \"revoked_at\""
    private static let sessionTypes: [EDMPrimitiveType?] = [.string, .string, .string, .string, .int64, .int64, .int64]

    private static func session(_ row: [ODataValue]) -> StoredSession? {
        guard let id = row[0].stringValue, let subject = row[1].stringValue,
              let created = row[4].integerValue, let expires = row[5].integerValue else { return nil }
        return StoredSession(id: id, subject: subject, issuer: row[2].stringValue, claims: row[3].stringValue,
                             createdAt: created, expiresAt: expires, revokedAt: row[6].integerValue)
    }

    /// Opens a session with its first refresh token.
    /// Not a ``write(_:)``: a new sign-in changes nothing held in memory, and signing in must not
    /// make every other client's next request verify its token again.
    func createSession(_ session: StoredSession, refreshHash: String) async throws {
        let sessions = q("auth_sessions"), refresh = q("refresh_tokens")
        try await database.transaction { connection in
            try await connection.execute(SQLStatement(
                "INSERT INTO \(sessions) (\(Self.sessionColumns)) VALUES (\(system.placeholders(7)))",
                binds: [.string(session.id), .string(session.subject), session.issuer.map(ODataValue.string) ?? .null,
                        session.claims.map(ODataValue.string) ?? .null, .int64(session.createdAt), .int64(session.expiresAt), .null]))
            try await connection.execute(SQLStatement(
                "INSERT INTO \(refresh) (\"token_hash\", \"session_id\", \"issued_at\", \"used_at\") VALUES (\(p(1)), \(p(2)), \(p(3)), NULL)",
                binds: [.string(refreshHash), .string(session.id), .int64(session.createdAt)]))
        }
    }

    func session(_ id: String) async throws -> StoredSession? {
        let rows = try await database.read { connection in
            try await connection.query(SQLStatement(
                "SELECT \(Self.sessionColumns) FROM \(q("auth_sessions")) WHERE \"id\" = \(p(1))", binds: [.string(id)]),
                types: Self.sessionTypes)
        }
        return rows.rows.first.flatMap(Self.session)
    }

    func revokeSession(_ id: String, now: Int64) async throws {
        try await write { connection in
            try await connection.execute(SQLStatement(
                "UPDATE \(q("auth_sessions")) SET \"revoked_at\" = \(p(1)) WHERE \"id\" = \(p(2)) AND \"revoked_at\" IS NULL",
                binds: [.int64(now), .string(id)]))
        }
    }

    /// Marks a refresh token used and stores its successor, in one transaction. A token used before
    /// revokes its whole family: someone holds a copy, and the server cannot tell which holder is legitimate.
    func rotateRefreshToken(hash: String, newHash: String, now: Int64) async throws -> RefreshOutcome {
        let sessions = q("auth_sessions"), refresh = q("refresh_tokens")
        return try await write { connection -> RefreshOutcome in
            let found = try await connection.query(SQLStatement(
                "SELECT \"session_id\" FROM \(refresh) WHERE \"token_hash\" = \(p(1))", binds: [.string(hash)]),
                types: [.string])
            guard let row = found.rows.first, let sessionID = row[0].stringValue else { return .unknown }
            let sessionRows = try await connection.query(SQLStatement(
                "SELECT \(Self.sessionColumns) FROM \(sessions) WHERE \"id\" = \(p(1))", binds: [.string(sessionID)]),
                types: Self.sessionTypes)
            guard let session = sessionRows.rows.first.flatMap(Self.session), session.isActive(at: now) else { return .ended }
            // Only one of two concurrent presentations of the same token can flip `used_at`.
            let claimed = try await connection.query(SQLStatement(
                "UPDATE \(refresh) SET \"used_at\" = \(p(1)) WHERE \"token_hash\" = \(p(2)) AND \"used_at\" IS NULL RETURNING \"session_id\"",
                binds: [.int64(now), .string(hash)]))
            guard !claimed.rows.isEmpty else {
                try await connection.execute(SQLStatement(
                    "UPDATE \(sessions) SET \"revoked_at\" = \(p(1)) WHERE \"id\" = \(p(2)) AND \"revoked_at\" IS NULL",
                    binds: [.int64(now), .string(sessionID)]))
                return .reused
            }
            try await connection.execute(SQLStatement(
                "INSERT INTO \(refresh) (\"token_hash\", \"session_id\", \"issued_at\", \"used_at\") VALUES (\(p(1)), \(p(2)), \(p(3)), NULL)",
                binds: [.string(newHash), .string(sessionID), .int64(now)]))
            return .rotated(session)
        }
    }

    /// Revokes the family a refresh token belongs to; answers whether the token was known.
    func revokeSession(refreshHash: String, now: Int64) async throws -> Bool {
        let sessions = q("auth_sessions"), refresh = q("refresh_tokens")
        return try await write { connection -> Bool in
            let found = try await connection.query(SQLStatement(
                "SELECT \"session_id\" FROM \(refresh) WHERE \"token_hash\" = \(p(1))", binds: [.string(refreshHash)]), types: [.string])
            guard let sessionID = found.rows.first?[0].stringValue else { return false }
            try await connection.execute(SQLStatement(
                "UPDATE \(sessions) SET \"revoked_at\" = \(p(1)) WHERE \"id\" = \(p(2)) AND \"revoked_at\" IS NULL",
                binds: [.int64(now), .string(sessionID)]))
            return true
        }
    }
}
