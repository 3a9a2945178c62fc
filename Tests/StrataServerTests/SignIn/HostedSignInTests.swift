import Foundation
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Hosted sign-in against a real OpenID Connect provider (django-oidc-provider, Fixtures/oidc),
/// driven over HTTP by a scripted browser: the web flow, accounts made at first sign-in and
/// found again, roles and output claims, one-time codes, plain OAuth 2.
@Suite(.serialized)
struct HostedSignInTests {
    @Test("Web flow: provider login, one-time code, tokens carrying the rules' roles and claims; the second sign-in finds the account",
          arguments: Backend.allCases)
    func webFlow(_ backend: Backend) async throws {
        try await withSignInServer(backend) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            let verifier = PKCE.verifier()
            let returned = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: verifier)),
                                                    until: SignInHarness.webRedirect)
            let query = ScriptedBrowser.query(returned)
            #expect(query["state"] == "app-state")
            let code = try #require(query["code"])
            // Strata sent the provider its own state, nonce and PKCE challenge, never the app's.
            let providerRequest = try #require(await browser.visited.first { $0.hasPrefix(harness.provider.issuer + "/authorize") })
            let sent = ScriptedBrowser.query(providerRequest)
            #expect(sent["state"] != "app-state" && sent["nonce"] != nil && sent["code_challenge_method"] == "S256")
            #expect(sent["code_challenge"] != PKCE.challenge(for: verifier))
            #expect(sent["redirect_uri"] == harness.strata + "/auth/callback/django")

            let tokens = try await harness.redeem(browser, code: code, verifier: verifier)
            #expect(tokens.status == 200, "\(tokens.body)")
            let issued = try #require(try JSONValue.parse(Array(tokens.body.utf8)).objectValue)
            let access = try #require(issued["access_token"]?.stringValue)
            #expect(issued["refresh_token"]?.stringValue != nil)

            let me = try #require(try JSONValue.parse(Array(try await harness.me(browser, token: access).body.utf8)).objectValue)
            #expect(me["subject"]?.stringValue == "django.alice")
            #expect(me["provider"]?.stringValue == "django")
            #expect(me["authentication"]?.stringValue == "provider")
            let roles = Set((me["roles"]?.arrayValue ?? []).compactMap(\.stringValue))
            #expect(roles == ["editor", "reader@hockey"])
            let claims = try #require(me["claims"]?.objectValue)
            #expect(claims["email"]?.stringValue == "alice@example.com")
            #expect(claims["displayName"]?.stringValue == "Alice Liddell")
            #expect(claims["tier"]?.stringValue == "gold")
            #expect(claims["sub"]?.stringValue == "django.alice")
            // The same claims are in the token, for the app to read without asking.
            let payload = try #require(UnverifiedToken(access).payload["claims"]?.objectValue)
            #expect(payload["email"]?.stringValue == "alice@example.com" && payload["sub"] == nil)

            // The roles work: the editor rule lets this sign-in write.
            let teams = try await browser.open(harness.url("/hockey/Teams?$top=1"), headers: [("Authorization", "Bearer \(access)")])
            #expect(teams.status == 200)

            // A second sign-in (the provider remembers the user) reaches the same account.
            let verifier2 = PKCE.verifier()
            let again = try await browser.signIn(starting: harness.authorizeURL(state: "second", challenge: PKCE.challenge(for: verifier2)),
                                                 until: SignInHarness.webRedirect)
            let second = try await harness.redeem(browser, code: try #require(ScriptedBrowser.query(again)["code"]), verifier: verifier2)
            #expect(second.status == 200)
            let accounts = try await harness.administer { try await $0.listUsers() }.filter { $0.username.hasPrefix("django.") }
            #expect(accounts.map(\.username) == ["django.alice"])
            #expect(accounts.first?.roles == [RoleAssignment(role: "reader", service: "hockey")])
        }
    }

    @Test("A code works once: presented again it is refused and the sign-in it opened ends")
    func codeReplay() async throws {
        try await withSignInServer(.sqlite) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            let verifier = PKCE.verifier()
            let returned = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: verifier)),
                                                    until: SignInHarness.webRedirect)
            let code = try #require(ScriptedBrowser.query(returned)["code"])
            let first = try await harness.redeem(browser, code: code, verifier: verifier)
            let access = try #require(try JSONValue.parse(Array(first.body.utf8))["access_token"]?.stringValue)
            #expect(try await harness.me(browser, token: access).status == 200)
            let replay = try await harness.redeem(browser, code: code, verifier: verifier)
            #expect(replay.status == 403)
            #expect(replay.body.contains("used before"))
            #expect(try await harness.me(browser, token: access).status == 401)
        }
    }

    @Test("The code needs the app's own verifier and redirect URI; a wrong one spends it")
    func codeBinding() async throws {
        try await withSignInServer(.sqlite) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            for wrong in ["verifier", "redirect"] {
                let verifier = PKCE.verifier()
                let returned = try await browser.signIn(starting: harness.authorizeURL(challenge: PKCE.challenge(for: verifier)),
                                                        until: SignInHarness.webRedirect)
                let code = try #require(ScriptedBrowser.query(returned)["code"])
                let refused = wrong == "verifier"
                    ? try await harness.redeem(browser, code: code, verifier: PKCE.verifier())
                    : try await harness.redeem(browser, code: code, verifier: verifier, redirect: SignInHarness.nativeRedirect)
                #expect(refused.status == 403, "\(wrong): \(refused.body)")
                #expect(refused.body.contains(wrong == "verifier" ? "code_verifier" : "redirect_uri"))
                // Spent: the right verifier and redirect URI no longer help.
                let late = try await harness.redeem(browser, code: code, verifier: verifier)
                #expect(late.status == 403)
            }
        }
    }

    @Test("Plain OAuth 2: who signed in is read from the user-info endpoint")
    func plainOAuth() async throws {
        try await withSignInServer(.sqlite) { harness in
            let browser = ScriptedBrowser(username: SignInHarness.alice.username, password: SignInHarness.alice.password)
            defer { Task { await browser.shutdown() } }
            let verifier = PKCE.verifier()
            let returned = try await browser.signIn(starting: harness.authorizeURL(provider: "plain", challenge: PKCE.challenge(for: verifier)),
                                                    until: SignInHarness.webRedirect)
            let sent = ScriptedBrowser.query(try #require(await browser.visited.first { $0.hasPrefix(harness.provider.issuer + "/authorize") }))
            #expect(sent["nonce"] == nil)
            let tokens = try await harness.redeem(browser, code: try #require(ScriptedBrowser.query(returned)["code"]), verifier: verifier)
            let access = try #require(try JSONValue.parse(Array(tokens.body.utf8))["access_token"]?.stringValue)
            let me = try JSONValue.parse(Array(try await harness.me(browser, token: access).body.utf8))
            #expect(me["subject"]?.stringValue == "plain.alice")
            #expect(me["claims"]?["email"]?.stringValue == "alice@example.com")
            // Another provider entry is another identity: not linked to django's account.
            #expect(try await harness.administer { try await $0.listUsers() }.contains { $0.username == "plain.alice" })
        }
    }
}
