import Foundation
import JWTKit
import StrataCore

/// Accepts tokens of trusted identity providers (the SpeakEasy sample's federated sign-in) and maps their
/// claims to Strata roles through each issuer's rule group.
///
/// Issuers are read from the system database on every use, so `strata issuer add|remove` applies
/// to the next request. Parsed key sets are kept per issuer together with the JWKS text they came
/// from, and rebuilt when that text changes; they can never be staler than the database.
struct Federation: Sendable {
    let store: AuthStore
    let keySets = IssuerKeySets()

    /// Algorithms accepted from identity providers. Naming them rules out `none`, HMAC with a
    /// public key as secret, and any other algorithm confusion.
    static let algorithms: Set<String> = ["RS256", "ES256"]
    /// Clock skew tolerated for `exp` and `nbf` of external tokens, whose issuers keep their own time.
    static let leeway: Int64 = 60

    /// A verified external token: its issuer and claims.
    struct Verified: Sendable {
        var issuer: TrustedIssuer
        var claims: JSONObject
        var subject: String
    }

    /// Whether some trusted issuer has this `iss`.
    func trusts(_ issuer: String) async throws -> TrustedIssuer? {
        try await store.issuers(named: issuer).first
    }

    /// Checks an external token completely: a trusted issuer, an accepted algorithm, a signature by
    /// one of the issuer's keys, the issuer's audience, and a current `exp`/`nbf`/`iat`. Any failure is a 401.
    func verify(_ token: String, issuer: TrustedIssuer, now: Date) async throws -> Verified {
        let checked = try await Self.check(token, issuer: issuer.issuer, audience: issuer.audience, now: now) { _ in
            do {
                return try await keySets.keys(for: issuer)
            } catch {
                throw AuthErrors.invalidToken("The signing keys of \(issuer.issuer) cannot be read; ask the administrator to check its JWKS.")
            }
        }
        return Verified(issuer: issuer, claims: checked.claims, subject: checked.subject)
    }

    /// The checks every external token passes, for token exchange and for a provider's `id_token`
    /// alike: an accepted algorithm, a signature by one of `keys` (asked for only once the
    /// algorithm is known; it gets the token's `kid`), `iss` equal to `issuer`, `audience` among
    /// `aud` (and the authorized party, where several audiences are named), a current `exp`/`nbf`/`iat`
    /// with ``leeway``, and a subject. Any failure is a 401 that says which check failed.
    static func check(_ token: String, issuer: String, audience: String, now: Date,
                      keys: (_ kid: String?) async throws -> JWTKeyCollection) async throws -> (claims: JSONObject, subject: String) {
        let parts = try UnverifiedToken(token)
        guard let algorithm = parts.algorithm, algorithms.contains(algorithm) else {
            throw AuthErrors.invalidToken("Tokens from \(issuer) must be signed with RS256 or ES256.")
        }
        let collection = try await keys(parts.keyID)
        do {
            _ = try await collection.verify(token, as: SignatureOnly.self)
        } catch {
            throw AuthErrors.invalidToken("The token's signature does not verify with the keys of \(issuer).")
        }
        let claims = parts.payload
        guard claims["iss"]?.stringValue == issuer else {
            throw AuthErrors.invalidToken("The token was issued by \(claims["iss"]?.stringValue ?? "nobody named"), not by \(issuer).")
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?: audiences = many.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(audience) else {
            throw AuthErrors.invalidToken("The token is not meant for this server (audience).")
        }
        if audiences.count > 1, let party = claims["azp"]?.stringValue, party != audience {
            throw AuthErrors.invalidToken("The token was issued to another client (azp).")
        }
        let seconds = AuthStore.seconds(now)
        guard let expires = numericDate(claims["exp"]) else {
            throw AuthErrors.invalidToken("The token has no expiry (exp).")
        }
        guard seconds < expires + leeway else { throw AuthErrors.invalidToken("The token has expired.") }
        if let notBefore = numericDate(claims["nbf"]), seconds + leeway < notBefore {
            throw AuthErrors.invalidToken("The token is not valid yet (nbf).")
        }
        if let issuedAt = numericDate(claims["iat"]), seconds + leeway < issuedAt {
            throw AuthErrors.invalidToken("The token was issued in the future (iat).")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw AuthErrors.invalidToken("The token names no subject (sub).")
        }
        return (claims, subject)
    }

    /// The Strata roles an issuer's rule group gives for these claims (see ``ClaimRule`` for how
    /// strictly a rule matches).
    static func roles(for claims: JSONObject, rules: [ClaimRule]) -> Set<String> {
        Set(rules.filter { $0.matches(claims[$0.claim], in: claims) }.map(\.role))
    }

    /// Claims offered to row filters as `$claims.<name>`: those with a single text, number or Boolean value.
    static func filterClaims(_ claims: JSONObject) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in claims {
            if let text = text(value) { result[name] = text }
        }
        return result
    }

    /// A JWT NumericDate: a JSON number of seconds, possibly with a fraction (dropped).
    private static func numericDate(_ value: JSONValue?) -> Int64? {
        guard case .number(let text)? = value else { return nil }
        if let whole = Int64(text) { return whole }
        return Double(text).flatMap { $0.isFinite && abs($0) < 1e15 ? Int64($0) : nil }
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n
        default: return nil
        }
    }
}

/// Nothing but a signature check: the claims are read from the verified bytes afterwards.
private struct SignatureOnly: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Parsed key sets per issuer, each tagged with the JWKS text it was built from.
package actor IssuerKeySets {
    private var sets: [String: (jwks: String, keys: JWTKeyCollection)] = [:]

    func keys(for issuer: TrustedIssuer) async throws -> JWTKeyCollection {
        if let cached = sets[issuer.issuer], cached.jwks == issuer.jwks { return cached.keys }
        let keys = try await Self.parse(issuer.jwks)
        sets[issuer.issuer] = (issuer.jwks, keys)
        return keys
    }

    /// Builds a key collection from a JWKS document; throws when it holds no usable RSA or EC key.
    package static func parse(_ jwks: String) async throws -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: jwks)
        return keys
    }
}
