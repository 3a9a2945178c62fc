import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataStorage
@testable import StrataServer
import Testing

/// The console (issue 39) in a real headless Chromium against a live server on each database:
/// sign in, the services and their sets with row counts, a set's first page (timed in the
/// browser), sorting, a `$filter` and its error, the next page, a row holding HTML shown as text,
/// no script error in the browser's log and no request to another host. Screenshots of each
/// screen go to `.build/console-screenshots/`.
@Suite("Console in a real browser", .serialized,
       .enabled(if: BrowserTestSwitch.requested, "left out with STRATA_BROWSER_TESTS=0 (see BrowserTestSwitch)"))
struct ConsoleBrowserTests {
    /// Fits Person's 50-character firstName.
    static let markup = "<img src=x onerror=\"window.__xss=2\"><b>bold</b>"

    /// The texts of one column of the table on the page.
    static func column(_ browser: WebDriver, _ name: String) async throws -> [String] {
        let script = """
            const headers = [...document.querySelectorAll('thead th')].map(th => th.textContent.replace(/ [▲▼]$/, ''));
            const index = headers.indexOf(arguments[0]);
            return [...document.querySelectorAll('tbody tr')].map(tr => tr.children[index].textContent);
            """
        return try await browser.run(script, [name]) as? [String] ?? []
    }

    @Test("Sign in, browse, sort, filter, page; markup in a row stays text; no script errors, no other hosts", arguments: Backend.allCases)
    func browse(_ backend: Backend) async throws {
        try await ConsolePage.with(backend) { page in
            let body = #"{"firstName":"\#(Self.markup.replacingOccurrences(of: "\"", with: "\\\""))","lastName":"Xss"}"#
            let created = try await page.client.execute(uri: "/cardealer/Person", method: .post,
                                                        headers: basic(TestAccounts.admin) + [.contentType: "application/json"],
                                                        body: ByteBuffer(string: body))
            #expect(created.status == .created, "\(created.text.prefix(300))")
            let total = try #require(Int(try await page.client.get("/cardealer/Person/$count", headers: basic(TestAccounts.admin)).text))
            try await Self.exercise(page.browser, backend: backend, root: page.root, port: page.port, total: total)
        }
    }

    @Test("A 100,000-row set's first page shows as fast as a 22-row one's (best of three loads: under 300 ms, or within half again the small one's)", arguments: Backend.allCases)
    func firstPageAtScale(_ backend: Backend) async throws {
        try await ConsolePage.with(backend) { page in
            // `strata demo-data` as a process, as a user makes such a table: generating 550,000 rows
            // takes a core for some seconds, which the test process's two threads should not give up.
            var arguments = ["demo-data", "--scale", "100000", "--service", "fleet", "--data", page.configuration.dataDirectory]
            if case .postgres(let location)? = page.configuration.database { arguments += ["--database", location.description] }
            let generated = try await ChildProcess.run(try StrataProcess.executable(), arguments)
            #expect(generated.status == 0, "\(generated.errors)")
            let reload = try await page.client.execute(uri: "/admin/services/reload", method: .post, headers: basic(TestAccounts.admin), body: nil)
            #expect(reload.status == .ok, "\(reload.text.prefix(300))")
            try await page.signIn(TestAccounts.admin)

            var best: [String: Double] = [:]
            for set in ["Maintenance", "Person", "Maintenance", "Person", "Maintenance", "Person"] {
                try await page.open("#/s/fleet/\(set)")
                try await page.waitLoaded("fleet's \(set)")
                let shown = try await page.browser.run("return Number(document.body.dataset.loaded) - performance.timeOrigin") as? Double ?? .infinity
                best[set] = min(best[set] ?? .infinity, shown)
            }
            #expect(try await page.browser.text(".pager [aria-live]") == "Rows 1–50 of 100,000")
            let small = best["Maintenance"] ?? .infinity, large = best["Person"] ?? .infinity
            print("Console: first page visible (\(backend), best of 3): 22 rows \(Int(small)) ms, 100,000 rows \(Int(large)) ms")
            // The claim is that size does not matter: under 300 ms, or — on a machine so loaded that
            // even the small table is slow (a full test run on 2 cores) — within half again its time.
            #expect(large < 300 || large < small * 1.5, "the first page of 100,000 rows took \(Int(large)) ms, of 22 rows \(Int(small)) ms")
            try await page.shot("table-100k")
        }
    }

    static func exercise(_ browser: WebDriver, backend: Backend, root: String, port: Int, total: Int) async throws {
        do {
            let shot = { (name: String) in try await browser.screenshot(to: "\(ConsolePage.screenshots)/\(backend)-\(name).png") }

            // Sign in.
            try await browser.open(root + "#/signin")
            try await browser.type(TestAccounts.admin, into: "input[name=username]")
            try await browser.type("wrong password", into: "input[name=password]")
            try await browser.click("form.signin button[type=submit]")
            let refused = try await browser.text(".error")
            #expect(refused.contains("not correct"), "\(refused)")
            try await shot("signin-refused")
            try await browser.type(TestAccounts.password(TestAccounts.admin), into: "input[name=password]")
            try await browser.click("form.signin button[type=submit]")
            try await browser.wait(until: "return document.querySelectorAll('ul.sets a').length > 0", "the service list")
            #expect(try await browser.text("#who").contains("Signed in as \(TestAccounts.admin)"))
            try await shot("services")

            // A service's sets with their row counts.
            try await browser.open(root + "#/s/cardealer")
            try await browser.wait(until: "return [...document.querySelectorAll('ul.sets a')].some(a => a.textContent.startsWith('Person') && a.textContent.includes('rows'))",
                                   "Person's row count")
            let personLink = try await browser.run("return [...document.querySelectorAll('ul.sets a')].find(a => a.textContent.startsWith('Person')).textContent") as? String
            #expect(personLink == "Person\(total) rows", "\(personLink ?? "")")
            try await shot("sets")

            // A set's first page, loaded as a new document so that its time counts from the start.
            try await browser.open("about:blank")
            try await browser.open(root + "#/s/cardealer/Person")
            try await browser.wait(until: "return !!document.body.dataset.loaded", "the first page")
            let firstPage = try await browser.run("return Number(document.body.dataset.loaded) - performance.timeOrigin") as? Double ?? .infinity
            print("Console: first page of Person (\(backend)) visible after \(Int(firstPage)) ms")
            #expect(try await column(browser, "personID").count == 50)
            #expect(try await browser.text(".pager [aria-live]") == "Rows 1–50 of \(total)")
            try await shot("table")

            // The next page continues where the first stopped.
            try await browser.click(".pager button:nth-of-type(2)")
            try await browser.wait(until: "return document.querySelector('.pager [aria-live]').textContent.startsWith('Rows 51–100')", "the second page")
            #expect(try await column(browser, "personID").first == "51")

            // Sorting by a column.
            try await browser.run("document.body.dataset.loaded = ''")
            try await browser.click("thead th:nth-of-type(3) button")
            try await browser.wait(until: "return !!document.body.dataset.loaded && location.hash.includes('orderby=lastName')", "the sorted page")
            let names = try await column(browser, "lastName")
            #expect(names.count == 50 && names == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "\(names.prefix(5))")

            // A filter finds the row with markup; it shows as text and runs nothing.
            try await browser.run("document.body.dataset.loaded = ''")
            try await browser.type("lastName eq 'Xss'", into: "input[name=filter]")
            try await browser.click("form.toolbar button[type=submit]")
            try await browser.wait(until: "return !!document.body.dataset.loaded && document.querySelectorAll('tbody tr').length === 1", "the filtered page")
            #expect(try await column(browser, "firstName") == [markup])
            #expect(try await browser.run("return window.__xss === undefined && document.querySelectorAll('tbody img, tbody script').length === 0") as? Bool == true)
            #expect(try await browser.text(".url").contains("$filter=lastName eq 'Xss'"))
            try await shot("filter-markup")

            // A filter the server refuses: its message, where the rows were.
            try await browser.type("lastName eq 1", into: "input[name=filter]")
            try await browser.click("form.toolbar button[type=submit]")
            let error = try await browser.text(".scroll .error")
            #expect(error.contains("lastName eq 1") || error.contains("Edm.String"), "\(error)")
            try await shot("filter-error")

            // No script error (refused requests are logged by the browser as network errors, on purpose),
            // and every request went to this server.
            let log = try await browser.log()
            let scriptErrors = log.filter { $0.level == "SEVERE" && !$0.message.contains("the server responded with a status of 4") }
            #expect(scriptErrors.isEmpty, "\(scriptErrors)")
            let requests = try await browser.run("return performance.getEntriesByType('resource').map(e => e.name)") as? [String] ?? []
            #expect(!requests.isEmpty && requests.allSatisfy { $0.hasPrefix("http://127.0.0.1:\(port)/") }, "\(requests)")
        }
    }
}
