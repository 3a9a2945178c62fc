import Foundation
import Logging
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

/// What hosted sign-in refuses, each with a clear error and without sending anyone anywhere the
/// request named: open redirects, CSRF (a state that is not Strata's), replays, code injection, a
/// provider's refusal, an expired ID token, an identity without an account where sign-up is off.
@Suite(.serialized)
struct HostedSignInRefusalTests {
    @Test("Requests /auth/authorize refuses before anyone is sent to a provider")
    func badAuthorizeRequests() async throws {
        try await withSignInServer(.sqlite) { harness in
            let browser = ScriptedBrowser(username: "x", password: "y")
            defer { Task { await browser.shutdown() } }
            let challenge = PKCE.challenge(for: PKCE.verifier())
            let cases: [(String, Int, String)] = [
                (harness.authorizeURL(redirect: "https://evil.example/steal", challenge: challenge), 400, "not registered"),
                (harness.authorizeURL(redirect: SignInHarness.webRedirect + "/more", challenge: challenge), 400, "not registered"),
                (harness.authorizeURL(provider: "nobody", challenge: challenge), 404, "no identity provider"),
                (harness.url("/auth/authorize?provider=django&redirect_uri=\(SignInHarness.webRedirect)&state=s&code_challenge=\(challenge)&code_challenge_method=plain"),
                 400, "S256"),
                (harness.authorizeURL(challenge: "short"), 400, "code_challenge"),
                (harness.authorizeURL(challenge: challenge, extra: [("provider", "second")]), 400, "twice"),
                (harness.authorizeURL(challenge: challenge, extra: [("service", "cardealer")]), 400, "not registered for the service cardealer"),
                (harness.url("/auth/authorize?provider=django&redirect_uri=\(SignInHarness.webRedirect)&code_challenge=\(challenge)"), 400, "state"),
            ]
            for (url, status, message) in cases {
                let page = try await browser.open(url, headers: [("Accept", "application/json")])
                #expect(page.status == status, "\(url): \(page.body)")
                #expect(page.location == nil)
                #expect(page.body.contains(message), "\(url): \(page.body)")
            }
            // A browser gets the same refusal as a page, never a redirect.
            let page = try await browser.open(harness.authorizeURL(redirect: "https://evil.example/steal", challenge: challenge))
            #expect(page.status == 400 && page.location == nil)
            #expect(page.body.contains("<p role=\"alert\">") && page.body.contains("https://evil.example/steal is not registered"))
        }
    }

    @Test("A callback with a state that is not a flow's, or a flow's used once, is refused with a page")
    func unknownAndReplayedState() async throws {
        try await withSignInServer(.sqlite) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            let forged = try await browser.open(harness.url("/auth/callback/django?code=abc&state=forged-state"))
            #expect(forged.status == 400 && forged.location == nil)
            #expect(forged.body.contains("unknown, has expired, or was completed already"))

            // Keep the provider's redirect to Strata, let the browser finish, then replay it.
            let callback = NIOLockedBox<String?>(nil)
            _ = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: PKCE.verifier())),
                                         until: SignInHarness.webRedirect) { url in
                if url.hasPrefix(harness.strata + "/auth/callback/") { callback.set(url) }
                return nil
            }
            let replay = try await browser.open(try #require(callback.get()))
            #expect(replay.status == 400 && replay.location == nil)
        }
    }

    @Test("A provider's refusal, a code issued to another application, and a flow sent back to another provider's callback reach the app as errors")
    func providerSideRefusals() async throws {
        try await withSignInServer(.sqlite) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            // The provider answers access_denied (the browser plays its answer).
            let denied = try await browser.signIn(starting: harness.authorizeURL(state: "d", challenge: PKCE.challenge(for: PKCE.verifier())),
                                                  until: SignInHarness.webRedirect) { url in
                guard url.hasPrefix(harness.strata + "/auth/callback/") else { return nil }
                let state = ScriptedBrowser.query(url)["state"] ?? ""
                return harness.url("/auth/callback/django?error=access_denied&state=\(state)")
            }
            var query = ScriptedBrowser.query(denied)
            #expect(query["error"] == "access_denied" && query["state"] == "d" && query["code"] == nil)
            #expect(query["error_description"]?.contains("did not sign you in") == true)

            // Code injection: a code the provider issued to another application, with Strata's state.
            let other = try await browser.signIn(
                starting: harness.provider.issuer + "/authorize?" + PercentEncoding.encodeForm([
                    ("client_id", SignInHarness.otherClient.id), ("redirect_uri", SignInHarness.otherClient.redirectURIs[0]),
                    ("response_type", "code"), ("scope", "openid email"), ("state", "o")]),
                until: SignInHarness.otherClient.redirectURIs[0])
            let stolen = try #require(ScriptedBrowser.query(other)["code"])
            let injected = try await browser.signIn(starting: harness.authorizeURL(state: "i", challenge: PKCE.challenge(for: PKCE.verifier())),
                                                    until: SignInHarness.webRedirect) { url in
                guard url.hasPrefix(harness.strata + "/auth/callback/") else { return nil }
                let state = ScriptedBrowser.query(url)["state"] ?? ""
                return harness.url("/auth/callback/django?code=\(stolen)&state=\(state)")
            }
            query = ScriptedBrowser.query(injected)
            #expect(query["error"] == "access_denied" && query["state"] == "i" && query["code"] == nil)
            #expect(query["error_description"]?.contains("did not accept the sign-in's code") == true)

            // Mix-up: the flow went to django, its answer arrives on second's callback.
            let mixed = try await browser.signIn(starting: harness.authorizeURL(state: "m", challenge: PKCE.challenge(for: PKCE.verifier())),
                                                 until: SignInHarness.webRedirect) { url in
                url.hasPrefix(harness.strata + "/auth/callback/django") ? url.replacingOccurrences(of: "/callback/django", with: "/callback/second") : nil
            }
            query = ScriptedBrowser.query(mixed)
            #expect(query["error"] == "access_denied" && query["error_description"]?.contains("another identity provider") == true)
            // None of these made an account.
            #expect(try await harness.administer { try await $0.listUsers() }.allSatisfy { !$0.username.hasPrefix("django.") })
        }
    }

    @Test("Without sign-up, an identity no account is linked to is refused; linked by the administrator, it signs in")
    func signUpOff() async throws {
        try await withSignInServer(.sqlite) { harness in
            _ = try await harness.administer { try await $0.configureSignIn("hockey", allowsSignUp: false) }
            let browser = ScriptedBrowser(username: SignInHarness.bob.username, password: SignInHarness.bob.password)
            defer { Task { await browser.shutdown() } }
            let refused = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: PKCE.verifier())),
                                                   until: SignInHarness.webRedirect)
            let query = ScriptedBrowser.query(refused)
            #expect(query["error"] == "access_denied")
            #expect(query["error_description"]?.contains("does not allow sign-up") == true)
            #expect(try await harness.administer { try await $0.listUsers() }.allSatisfy { !$0.username.hasPrefix("django.") })

            // bob is the provider's second user: sub "2".
            try await harness.administer { try await $0.linkIdentity(provider: "django", subject: "2", to: TestAccounts.reader) }
            let verifier = PKCE.verifier()
            let linked = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: verifier)),
                                                  until: SignInHarness.webRedirect)
            let tokens = try await harness.redeem(browser, code: try #require(ScriptedBrowser.query(linked)["code"]), verifier: verifier)
            let access = try #require(try JSONValue.parse(Array(tokens.body.utf8))["access_token"]?.stringValue)
            let me = try JSONValue.parse(Array(try await harness.me(browser, token: access).body.utf8))
            #expect(me["subject"]?.stringValue == TestAccounts.reader)
            // bob's address is not verified, so the email rule gives no editor role.
            #expect(me["roles"]?.arrayValue?.compactMap(\.stringValue) == ["reader"])
        }
    }

    @Test("An expired ID token is refused", .timeLimit(.minutes(2)))
    func expiredIDToken() async throws {
        try await withSignInServer(.sqlite, idTokenLifetime: 1) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            let returned = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: PKCE.verifier())),
                                                    until: SignInHarness.webRedirect) { url in
                // The provider signed the token for one second; Strata's clock is two minutes on when it reads it.
                if url.hasPrefix(harness.strata + "/auth/callback/") { harness.clock.advance(120) }
                return nil
            }
            let query = ScriptedBrowser.query(returned)
            #expect(query["error"] == "access_denied")
            #expect(query["error_description"]?.contains("has expired") == true)
        }
    }
}

/// A value a `@Sendable` closure may set and a test read afterwards.
final class NIOLockedBox<Value: Sendable>: Sendable {
    private let box: NIOLockedValueBox<Value>
    init(_ value: Value) { box = NIOLockedValueBox(value) }
    func set(_ value: Value) { box.withLockedValue { $0 = value } }
    func get() -> Value { box.withLockedValue { $0 } }
}

/// What the log says about sign-ins: each refusal with its reason, never a secret.
@Suite(.serialized)
struct HostedSignInLogTests {
    @Test("Refusals are logged with their reasons; codes, states, verifiers, tokens and the client secret never are")
    func noSecretsInLog() async throws {
        let capture = LogCapture()
        var logger = Logger(label: "sign-in", factory: { _ in capture })
        logger.logLevel = .trace
        let seen = NIOLockedBox<[String]>([])
        try await withSignInServer(.sqlite, logger: logger) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            var secrets = [SignInHarness.clientSecret, SignInHarness.alice.password]
            let verifier = PKCE.verifier()
            secrets.append(verifier)
            let returned = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: verifier)),
                                                    until: SignInHarness.webRedirect) { url in
                let query = ScriptedBrowser.query(url)
                seen.set(seen.get() + [query["code"], query["state"]].compactMap { $0 })
                return nil
            }
            let code = try #require(ScriptedBrowser.query(returned)["code"])
            secrets.append(code)
            let tokens = try await harness.redeem(browser, code: code, verifier: verifier)
            let issued = try JSONValue.parse(Array(tokens.body.utf8))
            secrets += [issued["access_token"]?.stringValue, issued["refresh_token"]?.stringValue].compactMap { $0 }
            // Refusals: a replayed code, and an unregistered redirect URI.
            #expect(try await harness.redeem(browser, code: code, verifier: verifier).status == 403)
            #expect(try await browser.open(harness.authorizeURL(redirect: "https://evil.example/x", challenge: PKCE.challenge(for: verifier))).status == 400)
            seen.set(seen.get() + secrets)
        }
        let lines = capture.lines
        #expect(lines.contains { $0.contains("Hosted sign-in refused") && $0.contains("used before") })
        #expect(lines.contains { $0.contains("Hosted sign-in refused") && $0.contains("is not registered") })
        #expect(lines.contains { $0.contains("Signed in through an identity provider") && $0.contains("django.alice") })
        #expect(lines.contains { $0.contains("/auth/callback/django?…") })
        for secret in seen.get() where secret.count >= 8 {
            #expect(!lines.contains { $0.contains(secret) }, "a secret reached the log: \(secret.prefix(6))…")
        }
    }
}
