import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Each check Strata makes of a provider's answer, against a provider that fails it on purpose
/// (``ScriptedProvider``): the ID token's audience, nonce, issuer, expiry and key, and the
/// authorization response's issuer (RFC 9207); and the bounded refresh of a provider's keys.
@Suite(.serialized)
struct IDTokenCheckTests {
    static let redirect = "com.example.hockey:/signed-in"

    /// Runs one sign-in through Strata's router with the provider answering as told; answers where
    /// the app was sent back to.
    static func signIn(_ client: any TestClientProtocol, browser: ScriptedBrowser) async throws -> [String: String] {
        let challenge = PKCE.challenge(for: PKCE.verifier())
        let start = try await client.execute(uri: "/auth/authorize?" + PercentEncoding.encodeForm([
            ("provider", "scripted"), ("redirect_uri", redirect), ("code_challenge", challenge), ("state", "s")]),
            method: .get, headers: [:], body: nil)
        let toProvider = try #require(start.headers[.location], "\(start.status) \(start.text)")
        let back = try #require(try await browser.open(toProvider).location)
        // The router client takes the path and query of Strata's callback URL.
        let parsed = try #require(URLComponents(string: back))
        let callback = parsed.percentEncodedPath + "?" + (parsed.percentEncodedQuery ?? "")
        let final = try await client.execute(uri: callback, method: .get, headers: [:], body: nil)
        return ScriptedBrowser.query(try #require(final.headers[.location], "\(final.status) \(final.text)"))
    }

    static func withScripted(_ test: @Sendable @escaping (ScriptedProvider, any TestClientProtocol, TestClock) async throws -> Void) async throws {
        let provider = try await ScriptedProvider.make()
        try await provider.run { issuer in
            let clock = TestClock()
            clock.advance(Date().timeIntervalSince(clock.now))
            try await withAuthServer(.sqlite, clock: clock, setup: { admin in
                try await admin.putProvider(IdentityProvider(name: "scripted", issuer: issuer, clientID: ScriptedProvider.clientID),
                                            secret: ProviderSecret("scripted-secret"))
                _ = try await admin.configureSignIn("hockey", redirectURIs: [redirect], allowsSignUp: true, signUpRole: .value("reader"))
            }) { client in
                // The provider stamps its tokens with the real time: start the server's clock from
                // it again after the setup, which can take over a minute on a loaded machine (past
                // the minute of skew a token's issue time is allowed).
                clock.advance(max(0, Date().timeIntervalSince(clock.now)))
                try await test(provider, client, clock)
            }
        }
    }

    @Test("An ID token for another audience, with another nonce or issuer, expired, or signed by an unknown key is refused; the app learns why")
    func refusedTokens() async throws {
        try await Self.withScripted { provider, client, clock in
            let browser = ScriptedBrowser(username: "", password: "")
            defer { Task { await browser.shutdown() } }
            let expected: [(ScriptedProvider.Fault, String)] = [
                (.audience, "not meant for this server"), (.nonce, "not for this sign-in (nonce)"), (.issuer, "was issued by"),
                (.expired, "has expired"), (.unknownKey, "does not verify"), (.responseIssuer, "names another issuer"),
                (.responseIssuerMissing, "names itself in its answers"),
            ]
            for (fault, message) in expected {
                provider.state.withLockedValue { $0.fault = fault }
                // The server's clock is the test's, which stands still: it is set to the provider's
                // time before each sign-in (a slow run once left it minutes behind, and the
                // provider's tokens seemed issued in the future).
                clock.advance(Date().timeIntervalSince(clock.now))
                // Servers keep a discovery document for an hour; the promise of `iss` is read from a fresh one.
                if fault == .responseIssuerMissing { clock.advance(3601) }
                let answer = try await Self.signIn(client, browser: browser)
                #expect(answer["error"] == "access_denied", "\(fault)")
                #expect(answer["state"] == "s" && answer["code"] == nil)
                #expect(answer["error_description"]?.contains(message) == true, "\(fault): \(answer["error_description"] ?? "")")
            }
            // Back to the provider's time, which signs the next token.
            clock.advance(Date().timeIntervalSince(clock.now))
            provider.state.withLockedValue { $0.fault = .none }
            let answer = try await Self.signIn(client, browser: browser)
            #expect(answer["code"] != nil, "\(answer)")
        }
    }

    @Test("Keys are fetched again for an unknown kid, at most once a minute: a rotation is picked up, a forged kid does not hammer the provider")
    func keyRefresh() async throws {
        try await Self.withScripted { provider, client, clock in
            let browser = ScriptedBrowser(username: "", password: "")
            defer { Task { await browser.shutdown() } }
            // putProvider fetched the keys once in the administration's own directory; count the server's from here.
            provider.state.withLockedValue { $0.jwksFetches = 0 }
            let first = try await Self.signIn(client, browser: browser)
            #expect(first["code"] != nil)
            #expect(provider.jwksFetches == 1)
            // A token signed by a kid the set lacks: within the minute, no fetch; three tries, still one.
            provider.state.withLockedValue { $0.fault = .unknownKey }
            for _ in 0..<3 {
                let refused = try await Self.signIn(client, browser: browser)
                #expect(refused["error"] == "access_denied")
            }
            #expect(provider.jwksFetches == 1)
            // The provider publishes the new key; a minute on, the unknown kid fetches the set again and verifies.
            provider.state.withLockedValue { $0.publishSecondKey = true }
            // From the provider's time (the test's clock stands still while the test runs).
            clock.advance(Date().timeIntervalSince(clock.now) + 61)
            let rotated = try await Self.signIn(client, browser: browser)
            #expect(rotated["code"] != nil)
            #expect(provider.jwksFetches == 2)
        }
    }
}
