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
    /// The claims a provider's rules made, for the app to read (hosted sign-in only; `sub` aside).
    var claims: [String: String]?

    /// Time and audience are checked by ``LocalTokens/verify(_:now:)`` with the server's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Signs and checks Strata's own access tokens with the server's ``SigningKeyRing``: the keys in
/// the system database that every server on it shares.
struct LocalTokens: Sendable {
    let ring: SigningKeyRing
    let issuer: String
    let audience: String
    let lifetime: TimeInterval

    /// Whole seconds of an access token's life (the `expires_in` of token responses).
    var expiresIn: Int { Int(lifetime) }

    func sign(_ principal: Principal, session: String?, now: Date) async throws -> String {
        let issuedAt = AuthStore.seconds(now)
        var output = principal.claims
        output["sub"] = nil
        let claims = AccessTokenClaims(sub: principal.subject, roles: principal.roleNames, iat: issuedAt, exp: issuedAt + Int64(expiresIn),
                                       iss: issuer, aud: audience, sid: session,
                                       claims: principal.method == .provider && !output.isEmpty ? output : nil)
        return try await ring.sign(claims)
    }

    /// Checks signature, algorithm, key, issuer, audience and expiry; any failure is a 401.
    func verify(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let claims = try await ring.verify(token, now: now)
        guard claims.iss == issuer, claims.aud == audience else {
            throw AuthErrors.invalidToken("The token was not issued for this server.")
        }
        guard AuthStore.seconds(now) < claims.exp else { throw AuthErrors.invalidToken("The token has expired.") }
        return claims
    }
}
