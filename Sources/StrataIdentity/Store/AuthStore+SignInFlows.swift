import Foundation
import StrataCore
import StrataSQL
import StrataStorage

/// A sign-in in progress at a provider, found again by the SHA-256 of Strata's `state`.
struct SignInFlow: Sendable, Hashable {
    var provider: String
    var service: String
    /// The app's redirect URI, already checked against the service's list.
    var redirectURI: String
    /// The app's own `state`, handed back unchanged.
    var appState: String
    /// The app's S256 code challenge, which its code verifier must meet at `/auth/token`.
    var codeChallenge: String
    var nonce: String
    /// Strata's own PKCE verifier toward the provider.
    var verifier: String
    /// The account a linking flow adds the identity to; nil for a sign-in.
    var linkSubject: String?
    var expiresAt: Int64
}

/// A one-time Strata code, issued at the provider's callback and redeemed at `/auth/token`.
struct SignInCode: Sendable {
    var username: String
    var provider: String
    var redirectURI: String
    var codeChallenge: String
    /// The provider's claims (a JSON object's text).
    var claims: String
    var providerToken: SealedSecret?
    var expiresAt: Int64
}

/// What presenting a Strata code led to.
enum CodeRedemption: Sendable {
    case redeemed(SignInCode)
    case unknown
    /// Used before: the sign-in it opened (if any) is ended now (RFC 6749 §4.1.2).
    case reused
    case expired
}

extension AuthStore {
    /// Stores a new flow, and deletes the expired ones: a flow nobody finished (the user went away)
    /// is gone ten minutes later, however many are started.
    ///
    /// Throws ``ThrottledError`` when `client` (the client's address) already has `limit` flows
    /// open, with the seconds until the oldest of them that counts expires. Servers sharing the
    /// database may each let one more through while they insert at once; the bound holds within that.
    func insertFlow(stateHash: String, _ flow: SignInFlow, client: String, limit: Int, now: Int64) async throws {
        let clientHash = RandomSecret.sha256Hex(client)
        let values: [ODataValue] = [
            .string(stateHash), .string(flow.provider), .string(flow.service), .string(flow.redirectURI), .string(flow.appState),
            .string(flow.codeChallenge), .string(flow.nonce), .string(flow.verifier), flow.linkSubject.map(ODataValue.string) ?? .null,
            .int64(flow.expiresAt), .string(clientHash),
        ]
        let table = q("sign_in_flows")
        try await database.transaction { connection in
            try await connection.execute("DELETE FROM \(table) WHERE \"expires_at\" < \(bind: .int64(now))")
            // The limit-th newest open flow of this address: while it exists, the address is at its limit.
            let full = try await connection.query("""
                SELECT "expires_at" FROM \(table) WHERE "client_hash" = \(bind: .string(clientHash)) \
                ORDER BY "expires_at" DESC LIMIT 1 OFFSET \(bind: .int64(Int64(max(1, limit) - 1)))
                """, types: [.int64])
            if let expires = full.rows.first?[0].integerValue {
                throw ThrottledError(retryAfter: Int(max(1, expires - now + 1)), reason: "Too many sign-ins started from this address")
            }
            try await connection.execute("""
                INSERT INTO \(table) ("state_hash", "provider", "service", "redirect_uri", "app_state", "code_challenge", \
                "nonce", "verifier", "link_subject", "expires_at", "client_hash") VALUES (\(SQL.binds(values)))
                """)
        }
    }

    /// Takes a flow: deletes it and answers it, so that a replayed callback finds nothing. An
    /// expired flow is not answered.
    func takeFlow(stateHash: String, now: Int64) async throws -> SignInFlow? {
        let table = q("sign_in_flows")
        let rows = try await database.transaction { connection in
            try await connection.query("""
                DELETE FROM \(table) WHERE "state_hash" = \(bind: .string(stateHash)) RETURNING "provider", "service", "redirect_uri", \
                "app_state", "code_challenge", "nonce", "verifier", "link_subject", "expires_at"
                """, types: [.string, .string, .string, .string, .string, .string, .string, .string, .int64])
        }
        guard let row = rows.rows.first, let expires = row[8].integerValue, now <= expires,
              let provider = row[0].stringValue, let service = row[1].stringValue, let redirect = row[2].stringValue, let appState = row[3].stringValue, let challenge = row[4].stringValue,
              let nonce = row[5].stringValue, let verifier = row[6].stringValue else { return nil }
        return SignInFlow(provider: provider, service: service, redirectURI: redirect, appState: appState, codeChallenge: challenge,
                          nonce: nonce, verifier: verifier, linkSubject: row[7].stringValue, expiresAt: expires)
    }

    func insertCode(codeHash: String, _ code: SignInCode) async throws {
        let values: [ODataValue] = [
            .string(codeHash), .string(code.username), .string(code.provider), .string(code.redirectURI), .string(code.codeChallenge),
            .string(code.claims), code.providerToken.map { .string(Self.storedSecret($0)) } ?? .null, .int64(code.expiresAt),
        ]
        try await database.transaction { connection in
            try await connection.execute("""
                INSERT INTO \(q("sign_in_codes")) ("code_hash", "username", "provider", "redirect_uri", "code_challenge", "claims", \
                "provider_token", "expires_at") VALUES (\(SQL.binds(values)))
                """)
        }
    }

    /// Marks a code used, or ends the sign-in of a code presented again. Codes expired for more than
    /// a minute are deleted on the way (kept that long so that a late replay is still recognised).
    func redeemCode(codeHash: String, now: Int64) async throws -> CodeRedemption {
        let codes = q("sign_in_codes"), sessions = q("auth_sessions")
        let system = self.system
        let outcome = try await database.transaction { connection -> CodeRedemption in
            try await connection.execute("DELETE FROM \(codes) WHERE \"expires_at\" < \(bind: .int64(now - 60))")
            let claimed = try await connection.query("""
                UPDATE \(codes) SET "used_at" = \(bind: .int64(now)) WHERE "code_hash" = \(bind: .string(codeHash)) AND "used_at" IS NULL \
                RETURNING "username", "provider", "redirect_uri", "code_challenge", "claims", "provider_token", "expires_at"
                """, types: [.string, .string, .string, .string, .string, .string, .int64])
            if let row = claimed.rows.first, let username = row[0].stringValue, let provider = row[1].stringValue,
               let redirect = row[2].stringValue, let challenge = row[3].stringValue, let claims = row[4].stringValue,
               let expires = row[6].integerValue {
                guard now <= expires else { return .expired }
                return .redeemed(SignInCode(username: username, provider: provider, redirectURI: redirect, codeChallenge: challenge,
                                            claims: claims, providerToken: row[5].stringValue.flatMap(Self.sealedSecret), expiresAt: expires))
            }
            let used = try await connection.query("SELECT \"session_id\" FROM \(codes) WHERE \"code_hash\" = \(bind: .string(codeHash))",
                types: [.string])
            guard let row = used.rows.first else { return .unknown }
            if let session = row[0].stringValue {
                try await connection.execute("UPDATE \(sessions) SET \"revoked_at\" = \(bind: .int64(now)) WHERE \"id\" = \(bind: .string(session)) AND \"revoked_at\" IS NULL")
                try await system.announce(.auth, on: connection)
            }
            return .reused
        }
        if case .reused = outcome { forgetCached() }
        return outcome
    }

    /// Records which sign-in a redeemed code opened.
    func attachSession(_ session: String, toCode codeHash: String) async throws {
        try await database.transaction { connection in
            try await connection.execute("UPDATE \(q("sign_in_codes")) SET \"session_id\" = \(bind: .string(session)) WHERE \"code_hash\" = \(bind: .string(codeHash))")
        }
    }

    // MARK: Identities

    /// The account a provider's subject is linked to.
    func linkedAccount(provider: String, subject: String) async throws -> String? {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \"username\" FROM \(q("account_identities")) WHERE \"provider\" = \(bind: .string(provider)) AND \"subject\" = \(bind: .string(subject))",
                types: [.string])
        }
        return rows.rows.first?[0].stringValue
    }

    /// Links a provider's subject to an existing account; answers the account it is linked to, which
    /// is another one when the identity was linked before (an identity belongs to one account).
    package func link(provider: String, subject: String, to username: String, now: Date) async throws -> String {
        let identities = q("account_identities"), accounts = q("accounts")
        return try await write { connection in
            try await link(provider: provider, subject: subject, to: username, createdAt: Self.seconds(now), identities: identities, accounts: accounts, connection)
        }
    }

    private func link(provider: String, subject: String, to username: String, createdAt: Int64, identities: TableName, accounts: TableName,
                      _ connection: any DatabaseConnection) async throws -> String {
        let existing = try await connection.query("SELECT \"username\" FROM \(identities) WHERE \"provider\" = \(bind: .string(provider)) AND \"subject\" = \(bind: .string(subject))",
            types: [.string])
        if let owner = existing.rows.first?[0].stringValue { return owner }
        let account = try await connection.query("SELECT 1 FROM \(accounts) WHERE \"username\" = \(bind: .string(username))")
        guard !account.rows.isEmpty else { throw Self.noAccount(username) }
        try await connection.execute("""
            INSERT INTO \(identities) ("provider", "subject", "username", "created_at") \
            VALUES (\(SQL.binds([.string(provider), .string(subject), .string(username), .int64(createdAt)])))
            """)
        return username
    }

    /// Creates an account for a provider's subject and links it, in one transaction; the name is
    /// `candidate`, or it with a number when taken. Answers the account linked: another one when a
    /// concurrent first sign-in of the same identity won.
    func createLinkedAccount(provider: String, subject: String, candidate: String, passwordHash: String, roles: [RoleAssignment],
                             now: Date) async throws -> String {
        let identities = q("account_identities"), accounts = q("accounts")
        return try await write { connection in
            let existing = try await connection.query("SELECT \"username\" FROM \(identities) WHERE \"provider\" = \(bind: .string(provider)) AND \"subject\" = \(bind: .string(subject))",
                types: [.string])
            if let owner = existing.rows.first?[0].stringValue { return owner }
            let createdAt = Self.seconds(now)
            for attempt in 0..<100 {
                let name = attempt == 0 ? candidate : "\(candidate.prefix(120))-\(attempt + 1)"
                if try await insertAccount(name, passwordHash: passwordHash, roles: roles.map { RoleAssignment(role: $0.role, service: $0.service) },
                                           createdAt: createdAt, connection) {
                    return try await link(provider: provider, subject: subject, to: name, createdAt: createdAt, identities: identities,
                                          accounts: accounts, connection)
                }
            }
            throw ODataError(status: 409, code: "Conflict", message: "No free account name near '\(candidate)'; ask the administrator to link this sign-in.")
        }
    }

    /// The identities linked to an account: (provider, subject).
    func identities(of username: String) async throws -> [(provider: String, subject: String)] {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \"provider\", \"subject\" FROM \(q("account_identities")) WHERE \"username\" = \(bind: .string(username)) ORDER BY \"provider\", \"subject\"",
                types: [.string, .string])
        }
        return rows.rows.compactMap { row in
            guard let provider = row[0].stringValue, let subject = row[1].stringValue else { return nil }
            return (provider, subject)
        }
    }

    /// A sealed secret in one text column: `sealedBy:keyCheck:sealed`.
    static func storedSecret(_ secret: SealedSecret) -> String {
        "\(secret.sealedBy):\(secret.keyCheck):\(secret.sealed)"
    }

    package static func sealedSecret(_ text: String) -> SealedSecret? {
        let parts = text.split(separator: ":", maxSplits: 2)
        guard parts.count == 3 else { return nil }
        return SealedSecret(sealed: String(parts[2]), sealedBy: String(parts[0]), keyCheck: String(parts[1]))
    }
}
