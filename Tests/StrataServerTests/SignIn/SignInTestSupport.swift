import Foundation
import HummingbirdTesting
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

/// A Strata server on a real loopback port with real OpenID Connect providers (``OIDCTestProvider``)
/// configured for hosted sign-in, and what a test needs to drive it.
struct SignInHarness: Sendable {
    /// `http://127.0.0.1:PORT`, Strata's public URL.
    let strata: String
    let configuration: StrataConfiguration
    /// The provider registered as `django` (and `plain`, the same one as plain OAuth 2).
    let provider: OIDCTestProvider
    /// A second provider, registered as `second`.
    let second: OIDCTestProvider
    let clock: SignInClock

    static let webRedirect = "http://127.0.0.1:9/web/done"
    static let nativeRedirect = "com.example.hockey:/signed-in"
    /// What a command line registers: any port of the loopback address (RFC 8252 §7.3).
    static let loopbackRedirect = "http://127.0.0.1/callback"
    static let alice = OIDCTestProvider.User(username: "alice", password: "alice-password-1", email: "alice@example.com",
                                             firstName: "Alice", lastName: "Liddell")
    static let bob = OIDCTestProvider.User(username: "bob", password: "bob-password-12", email: "bob@elsewhere.org", emailVerified: false)
    static let carol = OIDCTestProvider.User(username: "carol", password: "carol-password-1", email: "carol@example.com")
    static let clientID = "strata-test"
    static let clientSecret = "strata-secret-0123456789"
    /// Another application at the same provider (its codes must not work for Strata).
    static let otherClient = OIDCTestProvider.Client(id: "other-app", secret: "other-secret-0123", redirectURIs: ["http://127.0.0.1:9/other"])

    func administer<T: Sendable>(_ body: @Sendable (Administration) async throws -> T) async throws -> T {
        try await Administration.with(configuration, logger: TestDatabases.logger, body)
    }

    func url(_ path: String) -> String { strata + path }

    /// `/auth/authorize` for the web app with a fresh PKCE pair.
    func authorizeURL(provider: String = "django", redirect: String = webRedirect, state: String = "app-state",
                      challenge: String, extra: [(String, String)] = []) -> String {
        url("/auth/authorize?" + PercentEncoding.encodeForm([("provider", provider), ("redirect_uri", redirect), ("code_challenge", challenge),
                                                              ("code_challenge_method", "S256"), ("state", state)] + extra))
    }

    /// Redeems a code at `/auth/token`.
    func redeem(_ browser: ScriptedBrowser, code: String, verifier: String, redirect: String = webRedirect) async throws -> ScriptedBrowser.Page {
        try await browser.open(url("/auth/token"), method: "POST", form: PercentEncoding.encodeForm([
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier), ("redirect_uri", redirect),
        ]))
    }

    /// `/auth/me` with a bearer token.
    func me(_ browser: ScriptedBrowser, token: String) async throws -> ScriptedBrowser.Page {
        try await browser.open(url("/auth/me"), headers: [("Authorization", "Bearer \(token)")])
    }
}

/// Strata's clock in these tests: the real time, moved forward by hand (the providers keep real time).
final class SignInClock: Sendable {
    private let offset = NIOLockedValueBox<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLockedValue { $0 }) }

    func advance(_ seconds: TimeInterval) {
        offset.withLockedValue { $0 += seconds }
    }
}

/// Starts two providers and a server for them: `django` (OpenID Connect, rules: `email` in
/// example.com → editor; claims: pass email, rename name → displayName, set tier = gold; passes its
/// access token), `plain` (the same provider as plain OAuth 2), and `second`. The hockey service
/// registers the web and native redirect URIs and allows sign-up with the role reader.
func withSignInServer<T: Sendable>(
    _ backend: Backend,
    idTokenLifetime: Int = 600,
    logger: Logger = TestDatabases.logger,
    setup: @Sendable (SignInHarness) async throws -> Void = { _ in },
    _ test: @Sendable (SignInHarness) async throws -> T
) async throws -> T {
    // Strata's callback URLs are registered at the providers once its port is known.
    let users = [SignInHarness.alice, SignInHarness.bob]
    let placeholder = OIDCTestProvider.Client(id: SignInHarness.clientID, secret: SignInHarness.clientSecret, redirectURIs: ["http://127.0.0.1:9/x"])
    let provider = try await OIDCTestProvider.start(users: users, clients: [placeholder, SignInHarness.otherClient], idTokenLifetime: idTokenLifetime)
    defer { provider.stop() }
    let second = try await OIDCTestProvider.start(users: [SignInHarness.carol], clients: [placeholder])
    defer { second.stop() }
    let clock = SignInClock()
    return try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend)
        configuration.auth.passwordHashCost = 4
        configuration.auth.now = { clock.now }
        let prepared = configuration
        defer { try? FileManager.default.removeItem(atPath: prepared.dataDirectory) }
        try await Administration.with(prepared, logger: TestDatabases.logger) { admin in
            try await TestAccounts.create(admin)
            try await admin.putProvider(IdentityProvider(
                name: "django", issuer: provider.issuer, clientID: SignInHarness.clientID, displayName: "Django Test Provider",
                passesProviderToken: true, roleRules: [ClaimRule(claim: "email", match: .suffix("@example.com"), role: "editor")],
                claimRules: [.pass("email"), .rename("name", to: "displayName"), .set("tier", value: "gold")]),
                secret: ProviderSecret(SignInHarness.clientSecret))
            try await admin.putProvider(IdentityProvider(
                name: "plain", kind: .oauth2, issuer: provider.base + "/oauth2-users", clientID: SignInHarness.clientID,
                displayName: "Plain OAuth", authorizationEndpoint: provider.issuer + "/authorize", tokenEndpoint: provider.issuer + "/token",
                userInfoEndpoint: provider.issuer + "/userinfo", claimRules: [.pass("email")]),
                secret: ProviderSecret(SignInHarness.clientSecret))
            try await admin.putProvider(IdentityProvider(name: "second", issuer: second.issuer, clientID: SignInHarness.clientID,
                                                         displayName: "Second Provider", claimRules: [.pass("email")]),
                                        secret: ProviderSecret(SignInHarness.clientSecret))
            try await admin.configureSignIn("hockey", redirectURIs: [SignInHarness.webRedirect, SignInHarness.nativeRedirect, SignInHarness.loopbackRedirect],
                                            allowsSignUp: true, signUpRole: .value("reader"))
        }
        let app = try await buildApplication(prepared, logger: logger)
        return try await app.test(.live) { client in
            let strata = "http://127.0.0.1:\(try #require(client.port))"
            let callbacks = OIDCTestProvider.Client(id: SignInHarness.clientID, secret: SignInHarness.clientSecret,
                                                    redirectURIs: ["django", "plain", "second"].map { strata + "/auth/callback/" + $0 })
            try await provider.update(users: users, clients: [callbacks, SignInHarness.otherClient])
            try await second.update(users: [SignInHarness.carol], clients: [callbacks])
            let harness = SignInHarness(strata: strata, configuration: prepared, provider: provider, second: second, clock: clock)
            try await setup(harness)
            return try await test(harness)
        }
    }
}
