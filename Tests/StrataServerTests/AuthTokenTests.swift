import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The token service (seed 003): password logins, token contents and lifetime, refresh rotation,
/// sign-out, HTTP Basic, and refusals.
@Suite("Auth: tokens", .serialized)
struct AuthTokenTests {
    @Test("A JSON login answers a Bearer token valid 120 minutes, with a refresh token", arguments: Backend.allCases)
    func jsonLogin(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock) { client in
            let response = try await client.tokenRequest(json: #"{"username":"writer","password":"pw-writer"}"#)
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "no-store")
            let json = response.json
            #expect(json["token_type"]?.stringValue == "Bearer")
            #expect(json["expires_in"] == .number("7200"))
            #expect((json["refresh_token"]?.stringValue?.count ?? 0) >= 40)
            let token = try #require(json["access_token"]?.stringValue)
            let claims = try UnverifiedToken(token)
            #expect(claims.header["alg"]?.stringValue == "HS256")
            #expect(claims.payload["sub"]?.stringValue == "writer")
            #expect(claims.payload["roles"] == .array([.string("editor")]))
            #expect(claims.payload["iss"]?.stringValue == "strata")
            #expect(claims.payload["aud"]?.stringValue == "strata")
            let issuedAt = try #require(claims.payload["iat"]?.int64Value)
            #expect(issuedAt == Int64(clock.now.timeIntervalSince1970))
            #expect(claims.payload["exp"]?.int64Value == issuedAt + 7200)

            let me = try await client.get("/auth/me", headers: bearer(token))
            #expect(me.status == .ok)
            #expect(me.json["subject"]?.stringValue == "writer")
            #expect(me.json["roles"] == .array([.string("editor")]))
            #expect(me.json["authentication"]?.stringValue == "token")
        }
    }

    @Test("A form login with grant_type=password; a service-scoped role is listed with its service", arguments: Backend.allCases)
    func formLogin(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let response = try await client.tokenRequest(form: [("grant_type", "password"), ("username", "hockeyfan"), ("password", "pw-hockeyfan")])
            #expect(response.status == .ok)
            let token = try #require(response.json["access_token"]?.stringValue)
            let me = try await client.get("/auth/me", headers: bearer(token))
            #expect(me.json["roles"] == .array([.string("reader@hockey")]))
        }
    }

    @Test("Unknown user and wrong password get the same 403 OData error", arguments: Backend.allCases)
    func refusedLogins(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let wrong = try await client.tokenRequest(json: #"{"username":"writer","password":"nope"}"#)
            let unknown = try await client.tokenRequest(json: #"{"username":"ghost","password":"nope"}"#)
            #expect(wrong.status == .forbidden)
            #expect(unknown.status == .forbidden)
            #expect(wrong.odataError?.code == "Forbidden")
            #expect(wrong.text == unknown.text)
            #expect(wrong.headers[.contentType] == unknown.headers[.contentType])
            // A password bcrypt could not check in full never matches.
            let long = try await client.tokenRequest(json: #"{"username":"writer","password":"\#(String(repeating: "x", count: 100))"}"#)
            #expect(long.status == .forbidden)
        }
    }

    @Test("Malformed token requests are 400 or 415, never 500", arguments: Backend.allCases)
    func malformedRequests(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let cases: [(String?, String, HTTPResponse.Status)] = [
                ("application/json", "", .badRequest),
                ("application/json", "[1,2]", .badRequest),
                ("application/json", #"{"username":"writer"}"#, .badRequest),
                ("application/json", #"{"username":5,"password":"x"}"#, .badRequest),
                ("application/json", #"{"grant_type":"client_credentials"}"#, .badRequest),
                ("application/x-www-form-urlencoded", "grant_type=refresh_token", .badRequest),
                ("application/x-www-form-urlencoded", "username=%zz&password=x", .badRequest),
                ("text/plain", "username=writer", .unsupportedMediaType),
                (nil, "{}", .unsupportedMediaType),
            ]
            for (type, body, status) in cases {
                var headers: HTTPFields = [:]
                if let type { headers[.contentType] = type }
                let response = try await client.send(.post, "/auth/token", headers: headers, body: body)
                #expect(response.status == status, "\(type ?? "-") \(body)")
                #expect(response.odataError != nil)
            }
        }
    }

    @Test("An access token expires after its lifetime (injected clock)", arguments: Backend.allCases)
    func expiry(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock) { client in
            let (access, _) = try await client.signIn("reader")
            clock.advance(7199)
            #expect(try await client.get("/auth/me", headers: bearer(access)).status == .ok)
            clock.advance(1)
            let expired = try await client.get("/auth/me", headers: bearer(access))
            #expect(expired.status == .unauthorized)
            #expect(expired.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
            #expect(expired.odataError?.message.contains("expired") == true)
        }
    }

    @Test("Refresh tokens rotate; a reused one revokes its whole family", arguments: Backend.allCases)
    func refreshRotation(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock) { client in
            let (firstAccess, firstRefresh) = try await client.signIn("writer")
            clock.advance(60)
            let rotated = try await client.tokenRequest(form: [("grant_type", "refresh_token"), ("refresh_token", firstRefresh)])
            #expect(rotated.status == .ok)
            let secondAccess = try #require(rotated.json["access_token"]?.stringValue)
            let secondRefresh = try #require(rotated.json["refresh_token"]?.stringValue)
            #expect(secondRefresh != firstRefresh)
            #expect(try await client.get("/auth/me", headers: bearer(secondAccess)).status == .ok)

            // The first refresh token again: a copy is in someone else's hands.
            let reused = try await client.tokenRequest(form: [("grant_type", "refresh_token"), ("refresh_token", firstRefresh)])
            #expect(reused.status == .forbidden)
            #expect(reused.odataError?.code == "InvalidGrant")
            // The family is revoked: the newest refresh token and the access tokens stop working too.
            let after = try await client.tokenRequest(json: #"{"grant_type":"refresh_token","refresh_token":"\#(secondRefresh)"}"#)
            #expect(after.status == .forbidden)
            #expect(try await client.get("/auth/me", headers: bearer(secondAccess)).status == .unauthorized)
            #expect(try await client.get("/auth/me", headers: bearer(firstAccess)).status == .unauthorized)

            let unknown = try await client.tokenRequest(form: [("grant_type", "refresh_token"), ("refresh_token", "made-up")])
            #expect(unknown.status == .forbidden)
        }
    }

    @Test("Logout ends the sign-in of the access token, or of a refresh token", arguments: Backend.allCases)
    func logout(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let (access, refresh) = try await client.signIn("reader")
            #expect(try await client.send(.post, "/auth/logout", headers: bearer(access)).status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(access)).status == .unauthorized)
            let refused = try await client.tokenRequest(form: [("grant_type", "refresh_token"), ("refresh_token", refresh)])
            #expect(refused.status == .forbidden)

            let (other, otherRefresh) = try await client.signIn("reader")
            let byRefresh = try await client.send(.post, "/auth/logout", headers: [.contentType: "application/json"],
                                                  body: #"{"refresh_token":"\#(otherRefresh)"}"#)
            #expect(byRefresh.status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(other)).status == .unauthorized)

            #expect(try await client.send(.post, "/auth/logout").status == .unauthorized)
        }
    }

    @Test("HTTP Basic on any request; bad credentials and bad tokens are 401 with the challenge", arguments: Backend.allCases)
    func basicAndBadTokens(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let me = try await client.get("/auth/me", headers: basic("root"))
            #expect(me.status == .ok)
            #expect(me.json["authentication"]?.stringValue == "basic")
            #expect(me.json["roles"] == .array([.string("admin")]))
            // Remembered: the second request with the same credentials is answered too.
            #expect(try await client.get("/auth/me", headers: basic("root")).status == .ok)

            let (access, _) = try await client.signIn("reader")
            let parts = access.split(separator: ".").map(String.init)
            let tampered = parts[0] + "." + RandomSecret.base64URL(Array(#"{"sub":"root","roles":["admin"],"iat":1,"exp":9999999999,"iss":"strata","aud":"strata","sid":"x"}"#.utf8)) + "." + parts[2]
            let unsigned = RandomSecret.base64URL(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + "."
            let bad: [HTTPFields] = [
                basic("root", "wrong"), basic("ghost"), [.authorization: "Basic !!!"], [.authorization: "Digest abc"],
                bearer("not-a-jwt"), bearer(tampered), bearer(unsigned), bearer(parts[0] + "." + parts[1] + ".AAAA"),
            ]
            for headers in bad {
                let response = try await client.get("/auth/me", headers: headers)
                #expect(response.status == .unauthorized, "\(headers)")
                #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                #expect(response.odataError != nil)
                // Bad credentials are refused even where anonymous callers may read.
                #expect(try await client.get("/cardealer/Person(1)", headers: headers).status == .unauthorized)
            }
            let anonymous = try await client.get("/auth/me")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
        }
    }

    @Test("Failed logins are throttled per account and per client address, with Retry-After", arguments: Backend.allCases)
    func throttling(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withAuthServer(backend, clock: clock, configure: { configuration in
            configuration.auth.maxFailuresPerAccount = 3
            configuration.auth.maxFailuresPerAddress = 6
            configuration.auth.failureWindow = 600
        }) { client in
            for _ in 0..<3 {
                #expect(try await client.tokenRequest(json: #"{"username":"reader","password":"wrong"}"#).status == .forbidden)
            }
            clock.advance(10)
            // Blocked now, even with the right password, through the token endpoint and HTTP Basic alike.
            let blocked = try await client.tokenRequest(json: #"{"username":"reader","password":"pw-reader"}"#)
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.headers[.retryAfter] == "590")
            #expect(blocked.odataError?.code == "TooManyRequests")
            let blockedBasic = try await client.get("/auth/me", headers: basic(TestAccounts.reader))
            #expect(blockedBasic.status == .tooManyRequests)
            #expect(blockedBasic.headers[.retryAfter] == "590")
            // Another account from the same address is still fine.
            #expect(try await client.tokenRequest(json: #"{"username":"nobody","password":"pw-nobody"}"#).status == .ok)

            // Three more failures on other (unknown) names reach the address's limit: everyone from here waits.
            for name in ["ghost1", "ghost2", "ghost3"] {
                #expect(try await client.tokenRequest(json: #"{"username":"\#(name)","password":"x"}"#).status == .forbidden)
            }
            let byAddress = try await client.tokenRequest(json: #"{"username":"writer","password":"pw-writer"}"#)
            #expect(byAddress.status == .tooManyRequests)

            // When the window has passed, logins work again.
            clock.advance(600)
            #expect(try await client.tokenRequest(json: #"{"username":"reader","password":"pw-reader"}"#).status == .ok)
            #expect(try await client.tokenRequest(json: #"{"username":"writer","password":"pw-writer"}"#).status == .ok)
        }
    }

    @Test("A new password or a removed account ends existing tokens at once", arguments: Backend.allCases)
    func changesApplyImmediately(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let (readerToken, _) = try await client.signIn("reader")
            let (nobodyToken, _) = try await client.signIn("nobody")
            let changed = try await client.send(.post, "/admin/users/password", headers: basic("root") + [.contentType: "application/json"],
                                                body: #"{"username":"reader","password":"new-secret"}"#)
            #expect(changed.status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(readerToken)).status == .unauthorized)
            #expect(try await client.get("/auth/me", headers: basic("reader")).status == .unauthorized)
            #expect(try await client.get("/auth/me", headers: basic("reader", "new-secret")).status == .ok)

            #expect(try await client.send(.delete, "/admin/users?username=nobody", headers: basic("root")).status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(nobodyToken)).status == .unauthorized)
        }
    }
}

extension HTTPFields {
    static func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }
}
