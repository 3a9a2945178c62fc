import _CryptoExtras
import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// An identity provider played by the tests: an RSA and a P-256 key pair, their JWKS, and tokens
/// signed with them (seed 001's federated sign-in).
struct TestIdentityProvider: Sendable {
    static let issuer = "https://idp.test.example"
    static let audience = "strata-tests"

    let keys: JWTKeyCollection
    let jwks: String

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int64
        var iat: Int64
        var email: String?
        var email_verified: Bool?
        var groups: [String]?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func make(rsaKid: String = "rsa-1", ecKid: String = "ec-1") async throws -> TestIdentityProvider {
        // Seconds of work in a debug build: not on a cooperative thread.
        let rsa = try await onOwnThread { try _RSA.Signing.PrivateKey(keySize: .bits2048) }
        let primitives = try rsa.publicKey.getKeyPrimitives()
        let ec = ES256PrivateKey()
        let parameters = try #require(ec.parameters)
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: rsa), digestAlgorithm: .sha256, kid: JWKIdentifier(string: rsaKid))
        await keys.add(ecdsa: ec, kid: JWKIdentifier(string: ecKid))
        let jwks = """
            {"keys":[
              {"kty":"RSA","kid":"\(rsaKid)","use":"sig","alg":"RS256","n":"\(RandomSecret.base64URL(primitives.modulus))","e":"\(RandomSecret.base64URL(primitives.publicExponent))"},
              {"kty":"EC","kid":"\(ecKid)","use":"sig","alg":"ES256","crv":"P-256","x":"\(parameters.x)","y":"\(parameters.y)"}
            ]}
            """
        return TestIdentityProvider(keys: keys, jwks: jwks)
    }

    func token(kid: String = "rsa-1", issuer: String = Self.issuer, subject: String = "fb|1001", audience: String = Self.audience,
               email: String? = "ann@example.org", emailVerified: Bool? = true, groups: [String]? = nil,
               expires: Date, issued: Date) async throws -> String {
        let claims = Claims(iss: issuer, sub: subject, aud: audience, exp: Int64(expires.timeIntervalSince1970),
                            iat: Int64(issued.timeIntervalSince1970), email: email, email_verified: emailVerified, groups: groups)
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Trusts this provider with a rule group: `@example.org` addresses are editors, members of
    /// `hockey-fans` are readers, and everyone gets the custom role `member`.
    func trust(_ admin: Administration) async throws {
        try await admin.putIssuer(issuer: Self.issuer, audience: Self.audience, jwks: jwks, rules: [
            ClaimRule(claim: "email", match: .suffix("@example.org"), role: "editor"),
            ClaimRule(claim: "groups", match: .equals("hockey-fans"), role: "reader"),
            ClaimRule(claim: "sub", match: .any, role: "member"),
        ])
    }
}

@Suite("Auth: federation", .serialized)
struct AuthFederationTests {
    @Test("Valid RS256 and ES256 tokens of a trusted issuer are accepted; rules map claims to roles", arguments: Backend.allCases)
    func validTokens(_ backend: Backend) async throws {
        let clock = TestClock()
        let idp = try await TestIdentityProvider.make()
        try await withAuthServer(backend, clock: clock, setup: { try await idp.trust($0) }) { client in
            let rsa = try await idp.token(expires: clock.now + 600, issued: clock.now)
            let me = try await client.get("/auth/me", headers: bearer(rsa))
            #expect(me.status == .ok)
            #expect(me.json["subject"]?.stringValue == "fb|1001")
            #expect(me.json["authentication"]?.stringValue == "external")
            #expect(me.json["issuer"]?.stringValue == TestIdentityProvider.issuer)
            #expect(me.json["roles"] == .array([.string("editor"), .string("member")]))
            #expect(me.json["claims"]["email"]?.stringValue == "ann@example.org")

            let ec = try await idp.token(kid: "ec-1", subject: "fb|2002", email: "bob@elsewhere.net", groups: ["x", "hockey-fans"],
                                         expires: clock.now + 600, issued: clock.now)
            let other = try await client.get("/auth/me", headers: bearer(ec))
            #expect(other.status == .ok)
            #expect(other.json["roles"] == .array([.string("member"), .string("reader")]))
        }
    }

    @Test("Expired, wrongly signed, wrong-audience and untrusted tokens are 401", arguments: Backend.allCases)
    func refusedTokens(_ backend: Backend) async throws {
        let clock = TestClock()
        let idp = try await TestIdentityProvider.make()
        // Another provider using the same key ids: its signatures must not pass for the trusted one.
        let impostor = try await TestIdentityProvider.make()
        try await withAuthServer(backend, clock: clock, setup: { try await idp.trust($0) }) { client in
            let tokens = [
                try await idp.token(expires: clock.now - 3600, issued: clock.now - 7200),
                try await impostor.token(expires: clock.now + 600, issued: clock.now),
                try await impostor.token(kid: "ec-1", expires: clock.now + 600, issued: clock.now),
                try await idp.token(audience: "someone-else", expires: clock.now + 600, issued: clock.now),
                try await idp.token(issuer: "https://untrusted.example", expires: clock.now + 600, issued: clock.now),
            ]
            for token in tokens {
                let response = try await client.get("/auth/me", headers: bearer(token))
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
            }
            // An HMAC token claiming the trusted issuer is refused whatever its key.
            let hmac = JWTKeyCollection()
            await hmac.add(hmac: HMACKey(from: Array(idp.jwks.utf8)), digestAlgorithm: .sha256, kid: "rsa-1")
            let confused = try await hmac.sign(TestIdentityProvider.Claims(
                iss: TestIdentityProvider.issuer, sub: "x", aud: TestIdentityProvider.audience,
                exp: Int64(clock.now.timeIntervalSince1970) + 600, iat: Int64(clock.now.timeIntervalSince1970)))
            #expect(try await client.get("/auth/me", headers: bearer(confused)).status == .unauthorized)

            // A valid token stops being accepted when it expires.
            let valid = try await idp.token(expires: clock.now + 600, issued: clock.now)
            #expect(try await client.get("/auth/me", headers: bearer(valid)).status == .ok)
            clock.advance(600 + Double(Federation.leeway))
            #expect(try await client.get("/auth/me", headers: bearer(valid)).status == .unauthorized)
        }
    }

    @Test("Token exchange gives a Strata token with the mapped roles; refused tokens are 403", arguments: Backend.allCases)
    func exchange(_ backend: Backend) async throws {
        let clock = TestClock()
        let idp = try await TestIdentityProvider.make()
        try await withAuthServer(backend, clock: clock, setup: { try await idp.trust($0) }) { client in
            let external = try await idp.token(expires: clock.now + 600, issued: clock.now)
            let response = try await client.tokenRequest(form: [
                ("grant_type", TokenRequest.exchangeGrant), ("subject_token", external),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:jwt"),
            ])
            #expect(response.status == .ok)
            let access = try #require(response.json["access_token"]?.stringValue)
            let claims = try UnverifiedToken(access)
            #expect(claims.payload["iss"]?.stringValue == "strata")
            #expect(claims.payload["roles"] == .array([.string("editor"), .string("member")]))
            // The Strata token outlives the external one (its own 120 minutes).
            clock.advance(3600)
            let me = try await client.get("/auth/me", headers: bearer(access))
            #expect(me.status == .ok)
            #expect(me.json["authentication"]?.stringValue == "exchanged")
            #expect(me.json["subject"]?.stringValue == "fb|1001")

            let expired = try await client.tokenRequest(form: [("grant_type", TokenRequest.exchangeGrant), ("subject_token", external)])
            #expect(expired.status == .forbidden)
            #expect(expired.odataError?.code == "InvalidGrant")

            // No longer trusting the issuer ends what was exchanged for its tokens.
            #expect(try await client.send(.delete, "/admin/issuers?issuer=\(PercentEncoding.encodeQueryValue(TestIdentityProvider.issuer))",
                                          headers: basic("root")).status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(access)).status == .unauthorized)
        }
    }

    @Test("Rules match whole, well-formed values: a domain rule wants one verified address in that domain", arguments: Backend.allCases)
    func strictRules(_ backend: Backend) async throws {
        let clock = TestClock()
        let idp = try await TestIdentityProvider.make()
        try await withAuthServer(backend, clock: clock, setup: { try await idp.trust($0) }) { client in
            let cases: [(String, Bool?, [String])] = [
                ("ann@example.org", true, ["editor", "member"]),
                // What a validly signed token of a provider that lets anyone type any address can carry:
                ("ann@example.org", false, ["member"]),
                ("ann@example.org", nil, ["member"]),
                ("mallory@evil.org@example.org", true, ["member"]),
                ("mallory@sub.example.org", true, ["member"]),
                ("ANN@EXAMPLE.ORG", true, ["editor", "member"]),
            ]
            for (email, verified, expected) in cases {
                let token = try await idp.token(email: email, emailVerified: verified, expires: clock.now + 600, issued: clock.now)
                let roles = try await client.get("/auth/me", headers: bearer(token)).json["roles"]
                #expect(roles == .array(expected.map(JSONValue.string)), "\(email) verified \(String(describing: verified))")
            }
        }
    }

    @Test("Claim values of the wrong kind never satisfy a text rule; allow-unverified is the operator's choice")
    func ruleValueKinds() throws {
        let domain = ClaimRule(claim: "email", match: .suffix("@example.org"), role: "editor")
        func claims(_ json: String) throws -> JSONObject { try #require(JSONValue.parse(Array(json.utf8)).objectValue) }
        let matching: [(String, Bool)] = [
            (#"{"email":"a@example.org","email_verified":true}"#, true),
            (#"{"email":"a@example.org","email_verified":"true"}"#, true),
            (#"{"email":["a@evil.org","b@example.org"],"email_verified":true}"#, false),
            (#"{"email":"a@evil.org\u0000@example.org","email_verified":true}"#, false),
            (#"{"email":"@example.org","email_verified":true}"#, false),
            (#"{"email":{"address":"a@example.org"},"email_verified":true}"#, false),
            (#"{"email":"a@example.org","email_verified":false}"#, false),
        ]
        for (json, expected) in matching {
            #expect(Federation.roles(for: try claims(json), rules: [domain]).contains("editor") == expected, "\(json)")
        }
        let unverified = ClaimRule(claim: "email", match: .suffix("@example.org"), role: "editor", allowsUnverifiedEmail: true)
        #expect(Federation.roles(for: try claims(#"{"email":"a@example.org"}"#), rules: [unverified]) == ["editor"])
        // Numbers and Booleans are not the text of a rule; a list matches an equals rule by one element.
        let group = ClaimRule(claim: "groups", match: .equals("1"), role: "reader")
        #expect(Federation.roles(for: try claims(#"{"groups":1}"#), rules: [group]).isEmpty)
        #expect(Federation.roles(for: try claims(#"{"groups":true}"#), rules: [ClaimRule(claim: "groups", match: .equals("true"), role: "r")]).isEmpty)
        #expect(Federation.roles(for: try claims(#"{"groups":["0","1"]}"#), rules: [group]) == ["reader"])
        #expect(Federation.roles(for: try claims(#"{"groups":["x@example.org"]}"#), rules: [ClaimRule(claim: "groups", match: .suffix("@example.org"), role: "r")]).isEmpty)
        #expect(Federation.roles(for: try claims(#"{"groups":[]}"#), rules: [ClaimRule(claim: "groups", match: .any, role: "r")]).isEmpty)
    }

    @Test("Issuers are checked when added: JWKS with private or unusable keys are refused")
    func issuerValidation() async throws {
        let idp = try await TestIdentityProvider.make()
        try await withAuthServer(.sqlite) { client in
            let headers = basic("root") + [.contentType: "application/json"]
            let good = #"{"issuer":"https://a.example","audience":"x","jwks":\#(idp.jwks),"rules":[{"claim":"sub","match":"any","role":"reader"}]}"#
            #expect(try await client.send(.post, "/admin/issuers", headers: headers, body: good).status == .noContent)
            let listed = try await client.get("/admin/issuers", headers: basic("root"))
            #expect(listed.json["issuers"][0]["keys"] == .number("2"))
            #expect(listed.json["issuers"][0]["rules"][0]["role"]?.stringValue == "reader")
            for jwks in [#"{"keys":[]}"#, #"{"keys":[{"kty":"oct","kid":"a","k":"AAAA"}]}"#,
                         #"{"keys":[{"kty":"RSA","kid":"a","n":"AQAB","e":"AQAB","d":"AQAB"}]}"#, #""nonsense""#] {
                let body = #"{"issuer":"https://b.example","audience":"x","jwks":\#(jwks)}"#
                #expect(try await client.send(.post, "/admin/issuers", headers: headers, body: body).status == .badRequest, "\(jwks)")
            }
        }
    }
}
