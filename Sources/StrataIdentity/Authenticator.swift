import Foundation
import StrataCore

/// Establishes who a caller is: from HTTP Basic credentials, a Strata access token, or a trusted
/// identity provider's token. Also checks passwords for the token endpoint, with throttling.
///
/// A request reads what it needs from the system database (account and roles, session, issuer
/// and rules), except that the caller of a recently verified Strata access token is taken from
/// ``AuthStore/signIns``: signing out, a new password, a removed account or role changed through
/// this server stop a token on the next request; changed through another server on a PostgreSQL
/// system database, at the next request after the change is pushed (``CacheFreshness``); made by
/// the CLI on SQLite, within ``AuthSettings/cacheMaxAge``.
package struct Authenticator: Sendable {
    let store: AuthStore
    let hasher: PasswordHasher
    let tokens: LocalTokens
    let federation: Federation
    let throttle: any LoginThrottling
    let basicMemory: BasicCredentialMemory
    let settings: AuthSettings

    var now: Date { settings.now() }

    /// The caller named by an `Authorization` header; nil without one. Throws a 401 for credentials
    /// that are not valid and ``ThrottledError`` for Basic logins that are blocked. `client` (the
    /// caller's address, for throttling) is formatted only for Basic credentials.
    package func authenticate(authorization: String?, client: @autoclosure () -> String) async throws -> Principal? {
        guard let authorization else { return nil }
        if let token = Self.credentials(authorization, scheme: "Bearer") {
            return try await bearer(token)
        }
        if let encoded = Self.credentials(authorization, scheme: "Basic") {
            guard let decoded = UnverifiedToken.base64Decode(encoded), let colon = decoded.firstIndex(of: ":") else {
                throw AuthErrors.invalidToken("The Basic credentials are not base64 of name:password.")
            }
            let username = String(decoded[..<colon]), password = String(decoded[decoded.index(after: colon)...])
            do {
                return try await login(username: username, password: password, client: client(), remember: true)
            } catch let error as ODataError where error.status == 403 {
                throw AuthErrors.invalidToken("The user name or password is not correct.")
            }
        }
        throw AuthErrors.invalidToken("Send credentials as 'Authorization: Bearer <token>' or 'Authorization: Basic <name:password>'.")
    }

    /// The rest of the header after a scheme, matched without regard to case as HTTP asks.
    /// Works on UTF-8 bytes: a bearer token is a few hundred characters, and counting or lowercasing
    /// them as `Character`s on every request cost more than the rest of the check.
    package static func credentials(_ header: String, scheme: String) -> String? {
        let bytes = header.utf8
        var index = bytes.startIndex
        for expected in scheme.utf8 {
            // Scheme names are ASCII letters, so setting bit 5 folds case without matching anything else.
            guard index != bytes.endIndex, bytes[index] | 0x20 == expected | 0x20 else { return nil }
            index = bytes.index(after: index)
        }
        guard index != bytes.endIndex, bytes[index] == UInt8(ascii: " ") else { return nil }
        var start = bytes.index(after: index), end = bytes.endIndex
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        while start != end, blank(bytes[start]) { start = bytes.index(after: start) }
        while start != end, blank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return start == end ? nil : String(header[start..<end])
    }

    // MARK: Passwords

    /// Checks a name and password, subject to throttling. An unknown account and a wrong password
    /// get the same 403 after the same bcrypt work.
    package func login(username: String, password: String, client: String, remember: Bool = false) async throws -> Principal {
        let now = self.now
        let delay = try await throttle.check(account: username, address: client, now: now)
        if delay > .zero { try await Task.sleep(for: delay) }
        let found = try await store.accountWithRoles(username)
        let account = found?.account
        var valid = false
        var memoryKey: String?
        if remember, let account {
            let key = BasicCredentialMemory.key(username: username, password: password, storedHash: account.passwordHash)
            memoryKey = key
            valid = await basicMemory.remembers(key, now: now)
        }
        if !valid {
            valid = try await hasher.verify(password, hash: account?.passwordHash)
        }
        guard valid, let found else {
            try await throttle.recordFailure(account: username, address: client, now: now)
            throw AuthErrors.refusedLogin
        }
        try await throttle.recordSuccess(account: username, address: client)
        if let memoryKey { await basicMemory.remember(memoryKey, now: now) }
        return Self.accountPrincipal(found.account.username, roles: found.roles, method: remember ? .basic : .token)
    }

    /// The principal of an account with its current roles; nil when the account does not exist.
    func accountPrincipal(_ username: String, method: Principal.Method) async throws -> Principal? {
        guard let found = try await store.accountWithRoles(username) else { return nil }
        return Self.accountPrincipal(found.account.username, roles: found.roles, method: method)
    }

    static func accountPrincipal(_ username: String, roles: [RoleAssignment], method: Principal.Method) -> Principal {
        var global: Set<String> = []
        var scoped: [String: Set<String>] = [:]
        for assignment in roles {
            if let service = assignment.service {
                scoped[service, default: []].insert(assignment.role)
            } else {
                global.insert(assignment.role)
            }
        }
        return Principal(subject: username, roles: global, serviceRoles: scoped, claims: ["sub": username], method: method)
    }

    // MARK: Tokens

    /// A Strata token, or a token of a trusted issuer presented directly.
    func bearer(_ token: String) async throws -> Principal {
        let now = self.now
        if let known = store.signIns.principal(for: token, now: AuthStore.seconds(now)) { return known }
        let parts = try UnverifiedToken(token)
        if parts.issuer == tokens.issuer {
            let ticket = store.signIns.ticket(for: token)
            let claims = try await tokens.verify(token, now: now)
            if claims.preview == true { return try await previewPrincipal(claims) }
            let (principal, session) = try await signIn(for: claims)
            store.signIns.remember(principal, expiresAt: min(claims.exp, session.expiresAt), for: ticket)
            return principal
        }
        guard let issuerName = parts.issuer, let issuer = try await federation.trusts(issuerName) else {
            throw AuthErrors.invalidToken("The token's issuer is not trusted by this server.")
        }
        let verified = try await federation.verify(token, issuer: issuer, now: now)
        return Self.externalPrincipal(verified.subject, claims: verified.claims, issuer: issuer, method: .external)
    }

    /// The caller of a preview token: exactly the token's roles (never `admin`), reading only,
    /// while the administrator who asked for it still exists and holds `admin`.
    func previewPrincipal(_ claims: AccessTokenClaims) async throws -> Principal {
        guard claims.sub.hasPrefix(LocalTokens.previewPrefix),
              let admin = try await store.accountWithRoles(String(claims.sub.dropFirst(LocalTokens.previewPrefix.count))),
              admin.roles.contains(RoleAssignment(role: "admin")) else {
            throw AuthErrors.invalidToken("The administrator of this preview no longer holds the admin role.")
        }
        let roles = claims.roles.map { name in
            name.split(separator: "@", maxSplits: 1).map(String.init)
        }.map { parts in RoleAssignment(role: parts[0], service: parts.count > 1 ? parts[1] : nil) }
        guard !roles.contains(where: { $0.role == "admin" }) else { throw AuthErrors.invalidToken("A preview never holds the admin role.") }
        var principal = Self.accountPrincipal(claims.sub, roles: roles, method: .token)
        principal.preview = true
        return principal
    }

    /// The caller of a verified Strata token: its session must be active, and its account (or, for
    /// an exchanged token, its issuer) must still exist.
    func signIn(for claims: AccessTokenClaims) async throws -> (principal: Principal, session: StoredSession) {
        guard let sessionID = claims.sid else {
            throw AuthErrors.invalidToken("The token belongs to no sign-in.")
        }
        guard let session = try await store.session(sessionID), session.isActive(at: AuthStore.seconds(now)),
              session.subject == claims.sub else {
            throw AuthErrors.invalidToken("The sign-in this token belongs to has ended.")
        }
        return (try await principal(for: session), session)
    }

    func principal(for session: StoredSession) async throws -> Principal {
        if let provider = session.provider {
            guard let text = session.claims, case .object(let claims)? = try? JSONValue.parse(text),
                  let principal = try await providerPrincipal(session.subject, provider: provider, claims: claims) else {
                throw AuthErrors.invalidToken("The account or identity provider of this sign-in no longer exists.")
            }
            return principal
        }
        if let issuerName = session.issuer {
            guard let issuer = try await federation.trusts(issuerName),
                  let text = session.claims, case .object(let claims)? = try? JSONValue.parse(text) else {
                throw AuthErrors.invalidToken("The identity provider of this sign-in is no longer trusted.")
            }
            return Self.externalPrincipal(session.subject, claims: claims, issuer: issuer, method: .exchanged)
        }
        guard let principal = try await accountPrincipal(session.subject, method: .token) else {
            throw AuthErrors.invalidToken("The account of this token no longer exists.")
        }
        return principal
    }

    /// An identity provider's user: roles from the issuer's rule group (for every service), claims
    /// for row filters from the token.
    static func externalPrincipal(_ subject: String, claims: JSONObject, issuer: TrustedIssuer, method: Principal.Method) -> Principal {
        Principal(subject: subject, roles: Federation.roles(for: claims, rules: issuer.rules), claims: Federation.filterClaims(claims),
                  method: method, issuer: issuer.issuer)
    }
}

extension UnverifiedToken {
    /// Standard base64 (HTTP Basic) decoded as UTF-8 text.
    static func base64Decode(_ text: String) -> String? {
        guard let data = Data(base64Encoded: text) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
