import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import StrataCore
import StrataClient
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// StrataClient's side of hosted sign-in against the real provider: `AuthSession.signIn(with:)`
/// with an app's own scheme (the native variant, RFC 8252 §7.1), the provider list, claims in the
/// app, the provider's own access token, refresh, and linking a second provider to the account.
@Suite(.serialized)
struct HostedSignInClientTests {
    /// A presenter that plays the system's web authentication sheet with a scripted browser.
    static func presenter(_ browser: ScriptedBrowser) -> SignInPresenter {
        { url, redirectURI in
            URL(string: try await browser.signIn(starting: url.absoluteString, until: redirectURI.absoluteString))!
        }
    }

    @Test("An app signs in with its own scheme, reads its claims, calls the provider with its token, refreshes, and links a second provider",
          arguments: Backend.allCases)
    func nativeApp(_ backend: Backend) async throws {
        try await withSignInServer(backend) { harness in
            let alice = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            let carol = ScriptedBrowser(username: SignInHarness.carol.username, password: SignInHarness.carol.password)
            defer { Task { await alice.shutdown(); await carol.shutdown() } }
            let redirect = URL(string: SignInHarness.nativeRedirect)!
            let auth = AuthSession(serverURL: URL(string: harness.strata + "/")!)

            let providers = try await auth.providers()
            #expect(providers.map(\.name) == ["django", "plain", "second"])
            #expect(providers.first?.displayName == "Django Test Provider")

            let tokens = try await auth.signIn(with: "django", redirectURI: redirect, presenter: Self.presenter(alice))
            #expect(tokens.refreshToken != nil)
            let claims = try #require(try await auth.claims)
            #expect(claims.subject == "django.alice")
            #expect(Set(claims.roles) == ["editor", "reader@hockey"])
            #expect(claims.claims == ["email": "alice@example.com", "displayName": "Alice Liddell", "tier": "gold"])

            // The provider's own token, for the provider's API: its user-info answers for alice.
            let providerToken = try await auth.providerAccessToken()
            var request = URLRequest(url: URL(string: harness.provider.issuer + "/userinfo")!)
            request.setValue("Bearer \(providerToken)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.data(for: request)
            #expect(try JSONValue.parse(Array(data))["email"]?.stringValue == "alice@example.com")

            // Refreshed tokens keep the claims, which the rules make again from the provider's.
            try await auth.refresh()
            #expect(try await auth.claims?.claims["tier"] == "gold")

            // A data request with the session's tokens.
            let hockey = Connection(baseURL: URL(string: harness.strata + "/hockey/")!, configuration: ConnectionConfiguration(authenticator: auth))
            #expect(try await hockey.send(StrataRequest(.get, "Teams?$top=1", headers: ["Accept": "application/json"])).status == 200)

            // Linking: signed in as alice, carol's identity at the second provider is added to her account.
            try await auth.link("second", redirectURI: redirect, presenter: Self.presenter(carol))
            let other = AuthSession(serverURL: URL(string: harness.strata + "/")!)
            try await other.signIn(with: "second", redirectURI: redirect, presenter: Self.presenter(carol))
            #expect(try await other.claims?.subject == "django.alice")
            #expect(try await other.claims?.claims == ["email": "carol@example.com"])
            // That identity is now alice's: linking it to another account is refused.
            await #expect(throws: (any Error).self) {
                try await harness.administer { try await $0.linkIdentity(provider: "second", subject: "1", to: TestAccounts.reader) }
            }
            // A provider that does not pass its token says so.
            await #expect(throws: StrataError.self) { try await other.providerAccessToken() }
        }
    }

    @Test("Refusals reach the app as typed errors: a cancelled sheet, a foreign state, the provider's no")
    func refusals() async throws {
        try await withSignInServer(.sqlite) { harness in
            let redirect = URL(string: SignInHarness.nativeRedirect)!
            let auth = AuthSession(serverURL: URL(string: harness.strata + "/")!)
            struct Closed: Error {}
            do {
                try await auth.signIn(with: "django", redirectURI: redirect) { _, _ in throw Closed() }
                Issue.record("a closed sheet signed in")
            } catch let error as StrataError {
                #expect(error.kind == .cancelled)
            } catch {
                Issue.record("not a StrataError: \(error)")
            }
            do {
                try await auth.signIn(with: "django", redirectURI: redirect) { _, _ in URL(string: SignInHarness.nativeRedirect + "?code=x&state=forged")! }
                Issue.record("a foreign state signed in")
            } catch let error as StrataError {
                #expect(error.kind == .forbidden && error.message.contains("another state"))
            } catch {
                Issue.record("not a StrataError: \(error)")
            }
            do {
                try await auth.signIn(with: "django", redirectURI: redirect) { url, _ in
                    let state = ScriptedBrowser.query(url.absoluteString)["state"] ?? ""
                    return URL(string: SignInHarness.nativeRedirect + "?error=access_denied&error_description=No%20thanks&state=\(state)")!
                }
                Issue.record("a refusal signed in")
            } catch let error as StrataError {
                #expect(error.kind == .forbidden && error.code == "access_denied" && error.message == "No thanks")
            } catch {
                Issue.record("not a StrataError: \(error)")
            }
            // An unregistered redirect URI: the sheet shows Strata's refusal, and the user closes it.
            let browser = ScriptedBrowser(username: "x", password: "y")
            defer { Task { await browser.shutdown() } }
            let shown = NIOLockedBox<Int>(0)
            do {
                try await auth.signIn(with: "django", redirectURI: URL(string: "com.evil.app:/x")!) { url, _ in
                    let page = try await browser.open(url.absoluteString)
                    shown.set(page.location == nil ? page.status : -1)
                    throw Closed()
                }
                Issue.record("an unregistered redirect URI signed in")
            } catch let error as StrataError {
                #expect(error.kind == .cancelled)
            } catch {
                Issue.record("not a StrataError: \(error)")
            }
            #expect(shown.get() == 400)
            #expect(await auth.isSignedIn == false)
        }
    }
}
