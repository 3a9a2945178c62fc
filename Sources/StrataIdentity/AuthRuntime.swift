import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataStorage

/// Everything authentication needs, built once per server: the store, the password hasher, the
/// token signer, federation, throttling.
package struct AuthRuntime: Sendable {
    package let store: AuthStore
    package let authenticator: Authenticator
    package let settings: AuthSettings
    let logger: Logger

    package var hasher: PasswordHasher { authenticator.hasher }
    package var tokens: LocalTokens { authenticator.tokens }
    package var now: Date { settings.now() }

    /// Prepares the hasher's dummy hash and the token signing keys, which ``startSigningKeys()``
    /// opens once the system tables are migrated.
    package static func make(settings: AuthSettings, system: SystemDatabase, dataDirectory: String, logger: Logger) async throws -> AuthRuntime {
        let keys = SigningKeys(system: system, encryption: KeyEncryption(secret: settings.keySecret, dataDirectory: dataDirectory, logger: logger),
                               lifetime: settings.accessTokenLifetime)
        let ring = SigningKeyRing(store: keys, algorithm: settings.tokenAlgorithm, now: settings.now, logger: logger)
        let store = AuthStore(system: system, freshness: CacheFreshness(
            fallback: .seconds(settings.cacheMaxAge), pushed: .seconds(settings.pushedCacheMaxAge)))
        let tokens = LocalTokens(ring: ring, issuer: settings.tokenIssuer, audience: settings.tokenAudience,
                                 lifetime: settings.accessTokenLifetime)
        let authenticator = Authenticator(
            store: store, hasher: try PasswordHasher(cost: settings.passwordHashCost), tokens: tokens,
            federation: Federation(store: store), throttle: throttle(settings: settings, system: system),
            basicMemory: BasicCredentialMemory(lifetime: settings.basicCredentialMemory), settings: settings)
        authenticator.hasher.prepare()
        return AuthRuntime(store: store, authenticator: authenticator, settings: settings, logger: logger)
    }

    /// Opens the token signing keys in the system database, creating the first one and importing a
    /// data directory's `auth-signing.key` when needed; a key this server cannot open stops it.
    package func startSigningKeys() async throws {
        try await tokens.ring.start()
    }

    /// Reads the token signing keys again: another server or `strata keys rotate` changed them
    /// (``SystemChange/keys``). On failure the keys held so far stay in use.
    package func reloadSigningKeys() async throws {
        try await tokens.ring.reload()
    }

    /// Failed logins are counted where every server on the system database sees them: in the
    /// PostgreSQL system database, or in memory beside a SQLite one (which one server owns).
    static func throttle(settings: AuthSettings, system: SystemDatabase) -> any LoginThrottling {
        if system.dialect == .postgres, system.schema != nil { return SharedLoginThrottle(system: system, settings: settings) }
        return LoginThrottle(settings: settings)
    }

    /// The body of a successful `/auth/token` answer.
    package struct IssuedTokens: Sendable {
        var accessToken: String
        var expiresIn: Int
        var refreshToken: String?
        /// The sign-in the tokens belong to (not sent).
        var session: String? = nil

        package var json: [UInt8] {
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("access_token")
            writer.string(accessToken)
            writer.key("token_type")
            writer.string("Bearer")
            writer.key("expires_in")
            writer.number(expiresIn)
            if let refreshToken {
                writer.key("refresh_token")
                writer.string(refreshToken)
            }
            writer.endObject()
            return writer.bytes
        }
    }

    /// Opens a session for a signed-in caller and issues its first access and refresh tokens.
    /// `externalClaims` keeps an exchanged token's claims so that roles follow the issuer's rules later.
    /// `providerToken` is a provider's sealed access token, handed to this sign-in only.
    package func openSession(for principal: Principal, externalClaims: JSONObject? = nil, providerToken: String? = nil) async throws -> IssuedTokens {
        let now = self.now
        let seconds = AuthStore.seconds(now)
        let session = StoredSession(
            id: RandomSecret.token(bytes: 18), subject: principal.subject, issuer: principal.issuer,
            claims: externalClaims.map { JSONValue.object($0).jsonString }, createdAt: seconds,
            expiresAt: seconds + Int64(settings.sessionLifetime), revokedAt: nil, provider: principal.provider, providerToken: providerToken)
        let refresh = RandomSecret.token(bytes: 32)
        try await store.createSession(session, refreshHash: RandomSecret.sha256Hex(refresh))
        let access = try await tokens.sign(principal, session: session.id, now: now)
        return IssuedTokens(accessToken: access, expiresIn: tokens.expiresIn, refreshToken: refresh, session: session.id)
    }

    /// Rotates a refresh token: the presented one is spent, a new one and a new access token are issued.
    package func refresh(_ token: String) async throws -> IssuedTokens {
        let now = self.now
        let replacement = RandomSecret.token(bytes: 32)
        let outcome = try await store.rotateRefreshToken(
            hash: RandomSecret.sha256Hex(token), newHash: RandomSecret.sha256Hex(replacement), now: AuthStore.seconds(now))
        switch outcome {
        case .unknown, .ended:
            throw AuthErrors.refusedGrant("The refresh token is not valid; sign in again.")
        case .reused:
            logger.notice("A refresh token was used twice; its sign-in has been ended")
            throw AuthErrors.refusedGrant("The refresh token was used before, so its sign-in has been ended; sign in again.")
        case .rotated(let session):
            let principal: Principal
            do {
                principal = try await authenticator.principal(for: session)
            } catch let error as ODataError where error.status == 401 {
                throw AuthErrors.refusedGrant(error.message)
            }
            let access = try await tokens.sign(principal, session: session.id, now: now)
            return IssuedTokens(accessToken: access, expiresIn: tokens.expiresIn, refreshToken: replacement, session: session.id)
        }
    }

    /// Exchanges a trusted identity provider's token for Strata tokens carrying the mapped roles.
    package func exchange(_ subjectToken: String) async throws -> IssuedTokens {
        let verified: Federation.Verified
        do {
            let parts = try UnverifiedToken(subjectToken)
            guard let issuerName = parts.issuer, let issuer = try await authenticator.federation.trusts(issuerName) else {
                throw AuthErrors.invalidToken("The token's issuer is not trusted by this server.")
            }
            verified = try await authenticator.federation.verify(subjectToken, issuer: issuer, now: now)
        } catch let error as ODataError where error.status == 401 {
            throw AuthErrors.refusedGrant(error.message)
        }
        let principal = Authenticator.externalPrincipal(verified.subject, claims: verified.claims, issuer: verified.issuer, method: .exchanged)
        return try await openSession(for: principal, externalClaims: verified.claims)
    }
}
