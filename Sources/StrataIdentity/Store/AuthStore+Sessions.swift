import StrataCore
import StrataSQL
import StrataStorage

/// A sign-in and the family of refresh tokens it issued.
package struct StoredSession: Sendable {
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
    /// The identity provider of a hosted sign-in; `claims` then holds the provider's claims, whose
    /// rules give roles and output claims on every request.
    package var provider: String? = nil
    /// The provider's access token, sealed (`AuthStore.storedSecret`), when the provider passes it.
    package var providerToken: String? = nil

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
    private static let sessionColumns = SQL.identifiers(["id", "subject", "issuer", "claims", "created_at", "expires_at", "revoked_at", "provider", "provider_token"])
    private static let sessionTypes: [EDMPrimitiveType?] = [.string, .string, .string, .string, .int64, .int64, .int64, .string, .string]

    private static func session(_ row: [ODataValue]) -> StoredSession? {
        guard let id = row[0].stringValue, let subject = row[1].stringValue,
              let created = row[4].integerValue, let expires = row[5].integerValue else { return nil }
        return StoredSession(id: id, subject: subject, issuer: row[2].stringValue, claims: row[3].stringValue,
                             createdAt: created, expiresAt: expires, revokedAt: row[6].integerValue,
                             provider: row[7].stringValue, providerToken: row[8].stringValue)
    }

    /// Opens a session with its first refresh token.
    /// Not a ``write(_:)``: a new sign-in changes nothing held in memory, and signing in must not
    /// make every other client's next request verify its token again.
    func createSession(_ session: StoredSession, refreshHash: String) async throws {
        let sessions = q("auth_sessions"), refresh = q("refresh_tokens")
        try await database.transaction { connection in
            let values: [ODataValue] = [
                .string(session.id), .string(session.subject), session.issuer.map(ODataValue.string) ?? .null,
                session.claims.map(ODataValue.string) ?? .null, .int64(session.createdAt), .int64(session.expiresAt), .null,
                session.provider.map(ODataValue.string) ?? .null, session.providerToken.map(ODataValue.string) ?? .null,
            ]
            try await connection.execute("INSERT INTO \(sessions) (\(Self.sessionColumns)) VALUES (\(SQL.binds(values)))")
            try await connection.execute("INSERT INTO \(refresh) (\"token_hash\", \"session_id\", \"issued_at\", \"used_at\") VALUES (\(bind: .string(refreshHash)), \(bind: .string(session.id)), \(bind: .int64(session.createdAt)), NULL)")
        }
    }

    package func session(_ id: String) async throws -> StoredSession? {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \(Self.sessionColumns) FROM \(q("auth_sessions")) WHERE \"id\" = \(bind: .string(id))",
                types: Self.sessionTypes)
        }
        return rows.rows.first.flatMap(Self.session)
    }

    package func revokeSession(_ id: String, now: Int64) async throws {
        try await write { connection in
            try await connection.execute("UPDATE \(q("auth_sessions")) SET \"revoked_at\" = \(bind: .int64(now)) WHERE \"id\" = \(bind: .string(id)) AND \"revoked_at\" IS NULL")
        }
    }

    /// Marks a refresh token used and stores its successor, in one transaction. A token used before
    /// revokes its whole family: someone holds a copy, and the server cannot tell which holder is legitimate.
    ///
    /// Only that revocation is treated as a ``write(_:)`` (announced to the other servers, forgotten
    /// here): a plain rotation changes nothing any server holds in memory, and clients refreshing
    /// must not make every server read its grants again.
    func rotateRefreshToken(hash: String, newHash: String, now: Int64) async throws -> RefreshOutcome {
        let system = self.system
        let outcome: RefreshOutcome
        do {
            outcome = try await database.transaction { connection in
                let outcome = try await rotate(hash: hash, newHash: newHash, now: now, connection)
                if case .reused = outcome { try await system.announce(.auth, on: connection) }
                return outcome
            }
        } catch {
            // Whether a revocation committed is not known: forget, as a failed write does.
            forgetCached()
            throw error
        }
        if case .reused = outcome { forgetCached() }
        return outcome
    }

    private func rotate(hash: String, newHash: String, now: Int64, _ connection: any DatabaseConnection) async throws -> RefreshOutcome {
        let sessions = q("auth_sessions"), refresh = q("refresh_tokens")
        let found = try await connection.query("SELECT \"session_id\" FROM \(refresh) WHERE \"token_hash\" = \(bind: .string(hash))",
            types: [.string])
        guard let row = found.rows.first, let sessionID = row[0].stringValue else { return .unknown }
        let sessionRows = try await connection.query("SELECT \(Self.sessionColumns) FROM \(sessions) WHERE \"id\" = \(bind: .string(sessionID))",
            types: Self.sessionTypes)
        guard let session = sessionRows.rows.first.flatMap(Self.session), session.isActive(at: now) else { return .ended }
        // Only one of two concurrent presentations of the same token can flip `used_at`.
        let claimed = try await connection.query("UPDATE \(refresh) SET \"used_at\" = \(bind: .int64(now)) WHERE \"token_hash\" = \(bind: .string(hash)) AND \"used_at\" IS NULL RETURNING \"session_id\"")
        guard !claimed.rows.isEmpty else {
            try await connection.execute("UPDATE \(sessions) SET \"revoked_at\" = \(bind: .int64(now)) WHERE \"id\" = \(bind: .string(sessionID)) AND \"revoked_at\" IS NULL")
            return .reused
        }
        try await connection.execute("INSERT INTO \(refresh) (\"token_hash\", \"session_id\", \"issued_at\", \"used_at\") VALUES (\(bind: .string(newHash)), \(bind: .string(sessionID)), \(bind: .int64(now)), NULL)")
        return .rotated(session)
    }

    /// Revokes the family a refresh token belongs to; answers whether the token was known.
    package func revokeSession(refreshHash: String, now: Int64) async throws -> Bool {
        let sessions = q("auth_sessions"), refresh = q("refresh_tokens")
        return try await write { connection -> Bool in
            let found = try await connection.query("SELECT \"session_id\" FROM \(refresh) WHERE \"token_hash\" = \(bind: .string(refreshHash))", types: [.string])
            guard let sessionID = found.rows.first?[0].stringValue else { return false }
            try await connection.execute("UPDATE \(sessions) SET \"revoked_at\" = \(bind: .int64(now)) WHERE \"id\" = \(bind: .string(sessionID)) AND \"revoked_at\" IS NULL")
            return true
        }
    }
}
