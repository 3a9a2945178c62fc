import Foundation
import StrataCore
@testable import StrataServer
import Testing

extension ConsoleBrowserTests {
    /// The console's hosted sign-in against the real OpenID Connect provider of the sign-in tests
    /// (django-oidc-provider): the provider's button, its login page, the way back to
    /// `/console/` with a one-time code redeemed with PKCE; sign-out ends the sign-in on the server,
    /// and a console holding an ended session says so and asks to sign in again.
    @Suite("Hosted sign-in")
    struct SignInScreens {
        @Test("Sign in through a provider, sign out ends the session, an ended session is explained", arguments: Backend.allCases)
        func provider(_ backend: Backend) async throws {
            if let missing = WebDriver.missing {
                Issue.record("The console's browser tests need Chromium: \(missing). .ci/run installs it.")
                return
            }
            try await withSignInServer(backend, setup: { harness in
                _ = try await harness.administer { admin in
                    try await admin.configureSignIn("hockey", redirectURIs: [SignInHarness.webRedirect, harness.strata + "/console/"])
                }
            }) { harness in
                let browser = try await WebDriver.start()
                do {
                    try await Self.exercise(browser, harness: harness, backend: backend)
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }

        static func exercise(_ browser: WebDriver, harness: SignInHarness, backend: Backend) async throws {
            let shot = { (name: String) in try await browser.screenshot(to: "\(ConsolePage.screenshots)/\(backend)-\(name).png") }
            try await browser.open(harness.strata + "/console/#/signin")
            try await browser.wait(until: "return !!document.querySelector('button[name=provider-django]')", "the provider's button")
            try await shot("signin-providers")
            try await browser.click("button[name=provider-django]")
            try await browser.wait(until: "return location.origin !== '\(harness.strata)' && !!document.querySelector('input[name=password]')", "the provider's login page")
            try await browser.type(SignInHarness.alice.username, into: "input[name=username]")
            try await browser.type(SignInHarness.alice.password, into: "input[name=password]")
            try await browser.click("button[type=submit]")
            try await browser.wait(until: "return location.href.startsWith('\(harness.strata)/console/') && (document.querySelector('#who') || {}).textContent.includes('django.alice')",
                                   timeout: .seconds(20), "the console signed in as django.alice")
            #expect(try await browser.run("return location.search") as? String == "", "the code stays out of the address bar")
            try await browser.wait(until: "return document.querySelectorAll('ul.sets a').length > 0", "the service list")
            try await shot("signin-provider-done")

            // Sign-out ends the sign-in on the server: the token it held is refused afterwards.
            let token = try #require(try await browser.run("return JSON.parse(sessionStorage.getItem('strata.console.session')).token") as? String)
            try await browser.click("#who button")
            try await browser.wait(until: "return location.hash === '#/signin'", "the sign-in screen after signing out")
            let status = try await browser.run("""
                const done = arguments[arguments.length - 1];
                fetch('/auth/me', { headers: { Authorization: 'Bearer ' + arguments[0] } }).then(r => done(r.status), () => done(0));
                """, asyncWith: [token]) as? Int
            #expect(status == 401)

            // A console still holding that token learns that the session ended and says so.
            try await browser.run("sessionStorage.setItem('strata.console.session', JSON.stringify({ token: arguments[0], user: 'django.alice', expires: Date.now() + 600000 }))", [token])
            try await browser.open("about:blank")
            try await browser.open(harness.strata + "/console/#/s/hockey")
            try await browser.wait(until: "return location.hash === '#/signin' && !!document.querySelector('.error')", "the ended session's message")
            #expect(try await browser.text(".error").contains("session has ended"))
            try await shot("signin-session-ended")
        }
    }
}
