import Foundation
import JWTKit
import StrataCore

/// The claims of Strata's access tokens.
///
/// `roles` says what the caller held when the token was issued, for the client's benefit; the
/// server reads the account's current roles on every request, so taking a role away applies at once.
/// `sid` names the sign-in (session) the token belongs to; signing out revokes it.
package struct AccessTokenClaims: JWTPayload, Equatable {
    var sub: String
    var roles: [String]
    var iat: Int64
    var exp: Int64
    var iss: String
    var aud: String
    package var sid: String?
    /// The claims a provider's rules made, for the app to read (hosted sign-in only; `sub` aside).
    var claims: [String: String]?
    /// Not before: Strata never sets it; a token that does must not be used before it.
    var nbf: Int64?
    /// A token type in the payload, as some issuers write it (`"Refresh"`, `"ID"`); Strata never sets it.
    var typ: String?
    /// A role preview (`POST /admin/preview-token`): the caller holds exactly `roles`, reads only.
    var preview: Bool?

    /// Time and audience are checked by ``LocalTokens/verify(_:now:)`` with the server's clock.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Signs and checks Strata's own access tokens with the server's ``SigningKeyRing``: the keys in
/// the system database that every server on it shares.
package struct LocalTokens: Sendable {
    package let ring: SigningKeyRing
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

    /// A role preview token (`POST /admin/preview-token`): its subject is `preview:<admin>`, its
    /// roles are exactly `roles` (never `admin`), it has no sign-in and lives `lifetime` seconds.
    package func signPreview(admin: String, roles: [RoleAssignment], lifetime: Int64, now: Date) async throws -> String {
        let issuedAt = AuthStore.seconds(now)
        let claims = AccessTokenClaims(sub: Self.previewPrefix + admin, roles: roles.map(\.description), iat: issuedAt,
                                       exp: issuedAt + lifetime, iss: issuer, aud: audience, sid: nil, claims: nil, preview: true)
        return try await ring.sign(claims)
    }

    /// The start of a preview token's subject.
    package static let previewPrefix = "preview:"

    /// Clock difference tolerated between the servers that share the signing keys, for `iat` and `nbf`.
    static let clockSkew: Int64 = 60

    /// Checks signature, algorithm, key, issuer, audience and the token's times, and that it is an
    /// access token; any failure is a 401.
    ///
    /// Only holders of the signing keys can make a token, so the checks after the signature are
    /// against a key holder's mistakes (or a stolen key's uses): a token not valid yet (`nbf`),
    /// issued in the future (`iat`), or of another type (a JOSE `typ` other than `JWT` or
    /// `at+jwt`, RFC 9068; a payload `typ` such as Keycloak's `Refresh`) is not an access token.
    package func verify(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let claims = try await ring.verify(token, now: now)
        guard claims.iss == issuer, claims.aud == audience else {
            throw AuthErrors.invalidToken("The token was not issued for this server.")
        }
        let seconds = AuthStore.seconds(now)
        guard seconds < claims.exp else { throw AuthErrors.invalidToken("The token has expired.") }
        if let notBefore = claims.nbf, seconds + Self.clockSkew < notBefore {
            throw AuthErrors.invalidToken("The token is not valid yet (nbf).")
        }
        guard claims.iat <= seconds + Self.clockSkew else {
            throw AuthErrors.invalidToken("The token was issued in the future (iat); check the clocks of the servers that share the signing keys.")
        }
        let headerType = try UnverifiedToken(token).header["typ"].map { $0.stringValue?.lowercased() ?? "" }
        guard headerType.map(Self.accessTokenTypes.contains) ?? true, claims.typ.map({ $0.lowercased() == "bearer" }) ?? true else {
            throw AuthErrors.invalidToken("The token is not an access token (typ); send the access_token of a token response.")
        }
        return claims
    }

    /// The JOSE header `typ` values of access tokens: Strata's own `JWT`, and RFC 9068's.
    static let accessTokenTypes: Set<String> = ["jwt", "at+jwt", "application/at+jwt"]
}
