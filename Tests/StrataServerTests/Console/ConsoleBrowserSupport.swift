import Foundation
import HummingbirdTesting
import StrataCore
@testable import StrataServer
import Testing

/// The browser suites run with the rest of `swift test`; `STRATA_BROWSER_TESTS=0` leaves them out
/// (for a quick run on a machine without Chromium, say). They were opt-in for a while: full runs
/// with them failed on 2 cores with the errors of a process out of file descriptors — the test
/// process keeps about a hundred servers alive at once, and SQLite opened ten connections per file
/// up front (16,286 of 20,000 descriptors measured in one run). The pools now open connections on
/// demand (`SQLiteHandlePool`).
enum BrowserTestSwitch {
    static let requested = ProcessInfo.processInfo.environment["STRATA_BROWSER_TESTS"] != "0"
}

/// What every console browser test shares: a live server with the demo data on one database, a
/// headless Chromium beside it, sign-in through the console's own form, screenshots, and the
/// closing checks (no script error in the browser's log, no request to another host).
///
/// The console's suites are nested in ``ConsoleBrowserTests``, which is `.serialized`: one
/// browser at a time, so the rest of the suite keeps its share of the machine.
struct ConsolePage {
    let browser: WebDriver
    let client: any TestClientProtocol
    let configuration: StrataConfiguration
    let backend: Backend
    let port: Int

    /// `http://127.0.0.1:PORT/console/`.
    var root: String { "http://127.0.0.1:\(port)/console/" }

    /// Where the screenshots go: `.build/console-screenshots` of this package.
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/console-screenshots").path

    /// Runs `body` with a server on `backend` (`withAuthServer`'s accounts and demo data) and a
    /// browser of `width`×`height`; the browser is closed whatever happens.
    static func with(_ backend: Backend, width: Int = 1400, height: Int = 900,
                     configure: @escaping @Sendable (inout StrataConfiguration) -> Void = { _ in },
                     _ body: @escaping @Sendable (ConsolePage) async throws -> Void) async throws {
        if let missing = WebDriver.missing {
            Issue.record("The console's browser tests need Chromium: \(missing). .ci/run installs it.")
            return
        }
        try await withAuthServer(backend, testing: .live, configure: configure) { client, configuration in
            let port = try #require(client.port)
            let browser = try await WebDriver.start(width: width, height: height)
            do {
                try await body(ConsolePage(browser: browser, client: client, configuration: configuration, backend: backend, port: port))
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
    }

    /// Opens `fragment` (such as `#/admin`) as a new document.
    func open(_ fragment: String) async throws {
        try await browser.open("about:blank")
        try await browser.open(root + fragment)
    }

    /// Signs in through the console's form as `user` and waits for the service list.
    func signIn(_ user: String, password: String? = nil) async throws {
        try await open("#/signin")
        try await browser.type(user, into: "input[name=username]")
        try await browser.type(password ?? TestAccounts.password(user), into: "input[name=password]")
        try await browser.click("form.signin button[type=submit]")
        try await browser.wait(until: "return location.hash === '#/' && document.querySelectorAll('ul.sets a').length > 0", "the service list after signing in")
    }

    /// Saves a screenshot named `name` (prefixed with the database) under `.build/console-screenshots`.
    func shot(_ name: String) async throws {
        try await browser.screenshot(to: "\(Self.screenshots)/\(backend)-\(name).png")
    }

    /// Clears `document.body.dataset.loaded`, which screens set when they have drawn what they
    /// fetched, so that ``waitLoaded(_:)`` waits for the next drawing.
    func resetLoaded() async throws {
        try await browser.run("document.body.dataset.loaded = ''")
    }

    func waitLoaded(_ what: String, and condition: String = "true", timeout: Duration = .seconds(30)) async throws {
        try await browser.wait(until: "return !!document.body.dataset.loaded && (\(condition))", timeout: timeout, what)
    }

    /// Every visible form control on the page has an accessible name (a `<label>`, `aria-label` or
    /// `aria-labelledby`), and every button says what it does.
    func expectLabelled(_ screen: String) async throws {
        let unlabelled = try await browser.run("""
            const visible = (element) => element.offsetParent !== null || element.getClientRects().length > 0;
            const named = (element) => (element.labels && element.labels.length > 0) || element.getAttribute('aria-label') || element.getAttribute('aria-labelledby') || element.getAttribute('title');
            const controls = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter(visible).filter(c => !named(c));
            const buttons = [...document.querySelectorAll('button')].filter(visible).filter(b => !b.textContent.trim() && !b.getAttribute('aria-label'));
            return [...controls, ...buttons].map(e => e.outerHTML.slice(0, 120));
            """) as? [String] ?? ["(the check did not run)"]
        #expect(unlabelled.isEmpty, "controls without a label on \(screen): \(unlabelled)")
    }

    /// No script error in the browser's log (refused requests are logged as network errors on
    /// purpose) and every request went to this server; the last screen's controls are labelled.
    func expectCleanLog() async throws {
        try await expectLabelled("the last screen")
        let log = try await browser.log()
        let scriptErrors = log.filter { $0.level == "SEVERE" && !$0.message.contains("the server responded with a status of 4") }
        #expect(scriptErrors.isEmpty, "\(scriptErrors)")
        let requests = try await browser.run("return performance.getEntriesByType('resource').map(e => e.name)") as? [String] ?? []
        #expect(requests.allSatisfy { $0.hasPrefix("http://127.0.0.1:\(port)/") }, "\(requests)")
    }
}
