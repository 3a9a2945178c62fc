import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
import Testing

/// The console's administration screens (issue 39) in a real headless Chromium on each database:
/// an account added with a role, signed out everywhere and given a new password (its old token
/// stops); a grant with a row filter and its effect in the role preview; a refused row filter shown
/// at its field; anonymous access switched on and off; a key rotated; a page size applied; a model
/// file refused at its line; the screens at a phone's width; and an editor shown why #/admin is
/// refused, with no Admin entry in the menu.
extension ConsoleBrowserTests {
    @Suite("Administration")
    struct AdminScreens {
        static let admin = basic(TestAccounts.admin)

        /// Clicks a danger button twice: the first click asks, the second acts.
        static func confirm(_ page: ConsolePage, _ css: String) async throws {
            try await page.browser.click(css)
            try await page.browser.wait(until: "return document.querySelector(\(quoted(css)))?.getAttribute('aria-pressed') === 'true'", "the confirmation of \(css)")
            try await page.browser.click(css)
        }

        static func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }

        @Test("Accounts, grants with a row filter and the role preview, anonymous access, keys, service settings, model file errors; phone width; an editor refused",
              arguments: Backend.allCases)
        func administration(_ backend: Backend) async throws {
            try await ConsolePage.with(backend) { page in
                let browser = page.browser
                let started = ContinuousClock.now
                try await page.signIn(TestAccounts.admin)
                // The Admin entry appears once the console has read the caller's roles.
                try await browser.wait(until: "return !!document.querySelector('nav#sections a[href=\"#/admin\"]')", "the Admin entry")

                // ── Accounts: add one with a role.
                try await page.open("#/admin/accounts")
                try await page.waitLoaded("the accounts", and: "!!document.querySelector('tr[data-user=\"root\"]')")
                try await browser.type("clerk1", into: "form.adm-form input[name=username]")
                try await browser.type("clerk-password-1", into: "form.adm-form input[name=password]")
                try await browser.type("clerk@hockey", into: "form.adm-form input[name=roles]")
                try await browser.click("form.adm-form button[type=submit]")
                try await browser.wait(until: "return !!document.querySelector('tr[data-user=\"clerk1\"]')", "the new account")
                #expect(try await browser.text("tr[data-user=\"clerk1\"] .adm-chips").contains("clerk@hockey"))
                try await page.shot("admin-accounts")
                try await page.expectLabelled("the accounts")

                // Sign out everywhere: a token of clerk1 stops working.
                let old = try await page.client.signIn("clerk1", "clerk-password-1").access
                #expect(try await page.client.get("/auth/me", headers: bearer(old)).status == .ok)
                try await Self.confirm(page, "tr[data-user=\"clerk1\"] button[data-action=sign-out]")
                try await browser.wait(until: "return document.querySelector('.adm-body > .adm-status').textContent.includes('has ended')", "signed out everywhere")
                #expect(try await page.client.get("/auth/me", headers: bearer(old)).status == .unauthorized)
                // A new password: the new one signs in, a token from before stops.
                let before = try await page.client.signIn("clerk1", "clerk-password-1").access
                try await browser.type("clerk-password-2", into: "tr[data-user=\"clerk1\"] input[type=password]")
                try await browser.click("tr[data-user=\"clerk1\"] td.adm-actions form button[type=submit]")
                try await browser.wait(until: "return document.querySelector('.adm-body > .adm-status').textContent.includes('New password')", "the new password")
                #expect(try await page.client.get("/auth/me", headers: bearer(before)).status == .unauthorized)
                #expect(try await page.client.signIn("clerk1", "clerk-password-2").access.isEmpty == false)
                // Another role, added in the account's row.
                try await browser.type("reader@speakeasy", into: "tr[data-user=\"clerk1\"] input[name=role]")
                try await browser.click("tr[data-user=\"clerk1\"] td:nth-of-type(1) form button[type=submit]")
                try await browser.wait(until: "return document.querySelector('tr[data-user=\"clerk1\"] .adm-chips')?.textContent.includes('reader@speakeasy')", "the added role")
                #expect(try await browser.text(".adm-body > .adm-status").contains("now holds reader@speakeasy"))

                // ── Grants: a refused row filter at its field, then a good one, and the preview.
                try await page.open("#/admin/grants?service=hockey")
                try await page.waitLoaded("the grants", and: "!!document.querySelector('input[name=preview-role]')")
                try await browser.type("clerk", into: "input[name=role]")
                try await browser.run("document.querySelector('select[name=table]').value = 'Teams'")
                try await browser.type("nosuch eq 1", into: "input[name=filter]")
                try await browser.click("form[aria-label='Grant a right'] button[type=submit]")
                try await browser.wait(until: "return document.getElementById('adm-filter-error').textContent.includes('nosuch')", "the row filter's error at its field")
                try await browser.type("conference eq 'Eastern'", into: "input[name=filter]")
                try await browser.click("form[aria-label='Grant a right'] button[type=submit]")
                try await browser.wait(until: "return [...document.querySelectorAll('.adm-table td')].some(td => td.textContent.includes(\"conference eq 'Eastern'\"))", "the grant in the list")
                let all = Int(try await page.client.get("/hockey/Teams/$count", headers: Self.admin).text) ?? 0
                let eastern = Int(try await page.client.get("/hockey/Teams/$count?$filter=conference%20eq%20'Eastern'", headers: Self.admin).text) ?? -1
                try await browser.type("clerk", into: "input[name=preview-role]")
                try await browser.click("form[aria-label='Preview as a role'] button[type=submit]")
                try await browser.wait(until: "return !!document.querySelector('.adm-count[data-set=Teams]')", "the preview")
                let seen = try await browser.text(".adm-count[data-set=Teams]")
                #expect(seen == "\(eastern) rows" && eastern < all, "\(seen): \(eastern) of \(all)")
                #expect(try await browser.text(".adm-preview [data-set=Players]") == "no access")
                // The rows themselves, read with the preview token: only the row filter's.
                try await page.resetLoaded()
                try await browser.click("button.adm-preview-show[data-set=Teams]")
                try await page.waitLoaded("the preview's rows", and: "!!document.querySelector('table[data-preview-set=Teams]')")
                let conferences = try await browser.run("""
                    const table = document.querySelector('table[data-preview-set=Teams]');
                    const column = [...table.querySelectorAll('thead th')].map(th => th.textContent).indexOf('conference');
                    return [...table.querySelectorAll('tbody tr')].map(tr => column < 0 ? null : tr.children[column].textContent);
                    """) as? [String] ?? []
                #expect(conferences.count == min(eastern, 20) && conferences.allSatisfy { $0 == "Eastern" }, "\(conferences)")
                try await page.shot("admin-grants-preview")
                try await page.expectLabelled("the grants")

                // Anonymous access to hockey, on and off.
                #expect(try await page.client.get("/hockey/Teams/$count").status.code >= 400)
                try await browser.click("input[name=anonymous]")
                try await browser.wait(until: "return document.querySelector('.adm-body > .adm-status').textContent.includes('may now read')", "anonymous access on")
                #expect(try await page.client.get("/hockey/Teams/$count").status == .ok)
                try await browser.click("input[name=anonymous]")
                try await browser.wait(until: "return document.querySelector('.adm-body > .adm-status').textContent.includes('no longer')", "anonymous access off")
                #expect(try await page.client.get("/hockey/Teams/$count").status.code >= 400)

                // ── Keys: a rotation adds a key.
                try await page.open("#/admin/keys")
                try await page.waitLoaded("the keys", and: "document.querySelectorAll('.adm-keys tbody tr').length > 0")
                let keys = try await browser.run("return document.querySelectorAll('.adm-keys tbody tr').length") as? Int ?? 0
                try await Self.confirm(page, "button[data-action=rotate]")
                try await browser.wait(until: "return document.querySelectorAll('.adm-keys tbody tr').length === \(keys + 1)", "the new key")
                #expect(try await page.client.get("/auth/me", headers: bearer(try await page.client.signIn(TestAccounts.reader).access)).status == .ok)
                try await page.shot("admin-keys")
                try await page.expectLabelled("the keys")

                // ── A provider with every field, then changed from the form without its secret: the
                // secret stays stored and unseen, and the fields not on the first screen survive.
                try await browser.type("corp", into: "form[aria-label='Add or change a provider'] input[name=name]")
                try await browser.type("https://login.example.org", into: "input[name=issuer]")
                try await browser.type("strata-console", into: "input[name=clientId]")
                try await browser.type("console-s3cret", into: "input[name=clientSecret]")
                try await browser.click("form[aria-label='Add or change a provider'] details > summary")
                try await browser.run("document.querySelector('select[name=kind]').value = 'oauth2'")
                try await browser.type("https://login.example.org/authorize", into: "input[name=authorizationEndpoint]")
                try await browser.type("https://login.example.org/token", into: "input[name=tokenEndpoint]")
                try await browser.type("https://login.example.org/userinfo", into: "input[name=userInfoEndpoint]")
                try await browser.type("email suffix @example.org editor", into: "textarea[name=rules]")
                try await browser.click("form[aria-label='Add or change a provider'] button[type=submit]")
                try await browser.wait(until: "return [...document.querySelectorAll('.adm-table th')].some(th => th.textContent === 'corp')", "the saved provider")
                try await browser.type("corp", into: "form[aria-label='Add or change a provider'] input[name=name]")
                try await browser.run("document.querySelector('form[aria-label=\\'Add or change a provider\\'] input[name=name]').dispatchEvent(new Event('change'))")
                #expect(try await browser.run("return document.querySelector('textarea[name=rules]').value") as? String == "email suffix @example.org editor")
                try await browser.click("form[aria-label='Add or change a provider'] details > summary")
                try await browser.type("Corporate sign-in", into: "input[name=displayName]")
                try await browser.click("form[aria-label='Add or change a provider'] button[type=submit]")
                try await browser.wait(until: "return [...document.querySelectorAll('.adm-table th')].some(th => th.textContent === 'Corporate sign-in')", "the changed provider")
                let providers = try await page.client.get("/admin/providers", headers: Self.admin)
                let corp = providers.json["providers"]?.arrayValue?.first { $0["name"]?.stringValue == "corp" }
                #expect(corp?["hasSecret"] == .bool(true) && corp?["kind"]?.stringValue == "oauth2")
                #expect(corp?["rules"]?.arrayValue?.compactMap(\.stringValue) == ["email suffix @example.org editor"])
                #expect(corp?["tokenEndpoint"]?.stringValue == "https://login.example.org/token")
                #expect(!providers.text.contains("console-s3cret"))
                try await page.expectLabelled("the providers")

                // ── A trusted issuer and a rule, from the console: a token that issuer signs then holds the role.
                let idp = try await TestIdentityProvider.make()
                try await browser.type(TestIdentityProvider.issuer, into: "form[aria-label='Trust an issuer'] input[name=issuer]")
                try await browser.type(TestIdentityProvider.audience, into: "form[aria-label='Trust an issuer'] input[name=audience]")
                try await browser.run("document.querySelector('textarea[name=jwks]').value = arguments[0]", [idp.jwks])
                try await browser.click("form[aria-label='Trust an issuer'] button[type=submit]")
                try await browser.wait(until: "return !!document.querySelector('tr[data-issuer]')", "the trusted issuer")
                // The server's clock is a TestClock that this test never moves: a fresh one reads the same time.
                let serverNow = TestClock().now
                let foreign = try await idp.token(expires: serverNow + 600, issued: serverNow)
                #expect(try await page.client.get("/auth/me", headers: bearer(foreign)).json["roles"] == .array([]))
                try await browser.run("document.querySelector('select[name=match]').value = 'suffix'")
                try await browser.type("@example.org", into: "form[aria-label='Add a rule'] input[name=value]")
                try await browser.type("reader", into: "input[name=rule-role]")
                try await browser.click("form[aria-label='Add a rule'] button[type=submit]")
                try await browser.wait(until: "return !!document.querySelector('.adm-rules li')", "the rule")
                let me = try await page.client.get("/auth/me", headers: bearer(foreign))
                #expect(me.json["roles"] == .array([.string("reader")]), "\(me.text)")
                try await page.shot("admin-issuers")
                try await page.expectLabelled("the trusted issuers")

                // ── Service settings: a page size applied at once.
                try await page.open("#/admin/services")
                try await page.waitLoaded("the settings", and: "!!document.querySelector('form[data-service=hockey]')")
                try await browser.type("7", into: "form[data-service=hockey] input[name=pageSize]")
                try await browser.click("form[data-service=hockey] button[type=submit]")
                try await browser.wait(until: "return document.querySelector('form[data-service=hockey] .adm-status').textContent.includes('page size 7')", "the saved settings")
                let page7 = try await page.client.get("/hockey/Players", headers: Self.admin + [.accept: "application/json", HTTPField.Name("OData-MaxVersion")!: "4.0"])
                #expect(page7.json["value"]?.arrayValue?.count == 7, "\(page7.text.prefix(200))")
                try await page.shot("admin-services")
                try await page.expectLabelled("the settings")

                // ── Model file: a refused file marks its line.
                try await page.open("#/admin/model?service=hockey")
                try await page.waitLoaded("the model file", and: "!!document.querySelector('textarea[name=model]')")
                try await browser.run("const e = document.querySelector('textarea[name=model]'); e.value = arguments[0]; e.dispatchEvent(new Event('input'));",
                                      ["tables:\n  Teams:\n    colour: red\n"])
                try await browser.click("form[aria-label='Model file'] button[type=submit]")
                try await browser.wait(until: "return document.getElementById('adm-model-error').textContent.startsWith('Line 3')", "the model file's error at its line")
                #expect(try await browser.text(".adm-gutter .adm-bad-line").trimmingCharacters(in: .whitespacesAndNewlines) == "3")
                #expect(try await page.client.get("/admin/model?service=hockey", headers: Self.admin).status == .notFound)
                try await page.shot("admin-model-error")
                try await page.expectLabelled("the model file")

                // ── A phone's width: nothing wider than the screen.
                try await browser.resize(width: 400, height: 860)
                try await page.open("#/admin/accounts")
                try await page.waitLoaded("the accounts at a phone's width", and: "!!document.querySelector('tr[data-user=\"clerk1\"]')")
                let width = try await browser.run("return document.documentElement.scrollWidth") as? Int ?? 9999
                #expect(width <= 420, "the page is \(width) px wide")
                try await page.shot("admin-phone")
                try await browser.resize(width: 1400, height: 900)
                // Removing an account takes a second click.
                try await Self.confirm(page, "tr[data-user=\"clerk1\"] button[data-action=remove]")
                try await browser.wait(until: "return !document.querySelector('tr[data-user=\"clerk1\"]')", "the account removed")
                let gone = try await page.client.execute(uri: "/auth/token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                         body: ByteBuffer(string: "grant_type=password&username=clerk1&password=clerk-password-2"))
                #expect(gone.status.code >= 400 && gone.status.code < 500)
                // How long the screens took is printed, not asserted: speed is for benchmarks, and a loaded machine is slower.
                print("Console: administration screens (\(backend)) in \(ContinuousClock.now - started)")

                // ── An editor: no Admin entry, and #/admin explained.
                try await browser.run("sessionStorage.clear()")
                try await page.signIn(TestAccounts.editor)
                #expect(try await browser.run("return !!document.querySelector('nav#sections a[href=\"#/admin\"]')") as? Bool == false)
                try await page.open("#/admin")
                try await page.waitLoaded("the refusal", and: "!!document.querySelector('main .error')")
                #expect(try await browser.text("main .error").contains("403"))
                try await page.shot("admin-forbidden")
                try await page.expectCleanLog()
            }
        }
    }
}
