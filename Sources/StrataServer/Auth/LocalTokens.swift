import Foundation
import JWTKit
import StrataCore

/// The claims of Strata's access tokens.
///
/// `roles` says what the caller held when the token was issued, for the client's benefit; the
/// server reads the account's current roles on every request, so taking a role away applies at once.
/// `sid` names the sign-in (session) the token belongs to; signing out revokes it.
struct AccessTokenClaims: JWTPayload, Equatable {
    var sub: String
    var roles: [String]
    var iat: Int64
    var exp: Int64
    var iss: String
    var aud: String
    var sid: String?

    /// Time and audience are checked by ``LocalTokens/verify(_:now:)`` with the server's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Signs and checks Strata's own access tokens (HS256 with the key from the data directory).
struct LocalTokens: Sendable {
    let keys: JWTKeyCollection
    let issuer: String
    let audience: String
    let lifetime: TimeInterval

    static let algorithm = "HS256"

    init(key: [UInt8], issuer: String, audience: String, lifetime: TimeInterval) async {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
    }

    /// Whole seconds of an access token's life (the `expires_in` of token responses).
    var expiresIn: Int { Int(lifetime) }

    func sign(subject: String, roles: [String], session: String?, now: Date) async throws -> String {
        let issuedAt = AuthStore.seconds(now)
        let claims = AccessTokenClaims(sub: subject, roles: roles, iat: issuedAt, exp: issuedAt + Int64(expiresIn),
                                       iss: issuer, aud: audience, sid: session)
        return try await keys.sign(claims, header: ["typ": "JWT"])
    }

    /// Checks signature, algorithm, issuer, audience and expiry; any failure is a 401.
    func verify(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let parts = try UnverifiedToken(token)
        guard parts.algorithm == Self.algorithm else { throw AuthErrors.invalidToken("The token is not signed with HS256.") }
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw AuthErrors.invalidToken("The token's signature or claims are not valid.")
        }
        guard claims.iss == issuer, claims.aud == audience else {
            throw AuthErrors.invalidToken("The token was not issued for this server.")
        }
        guard AuthStore.seconds(now) < claims.exp else { throw AuthErrors.invalidToken("The token has expired.") }
        return claims
    }
}
