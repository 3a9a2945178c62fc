import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
import Testing

/// The console's SQL, Live and Blobs screens (issue 39) in a real headless Chromium on each
/// database: a `$sql` result grid, a refused query with the caret at the checker's line and column,
/// CSV and JSON exports read back from the Blob the page hands to the browser; readiness and the
/// metrics summary, a row inserted by another client arriving on the set's live screen; a
/// container created, made public and private, a file uploaded by the file input and one by a
/// dropped file, listed, downloaded byte for byte, deleted, the container removed; and a reader
/// shown why the metrics and an upload are refused.
extension ConsoleBrowserTests {
    @Suite("SQL, live, blobs")
    struct ToolScreens {
        static let admin = basic(TestAccounts.admin)

        /// Makes `URL.createObjectURL` keep every Blob the page hands out in `window.__exports`.
        static func captureExports(_ browser: WebDriver) async throws {
            try await browser.run("""
                window.__exports = [];
                if (!window.__capturing) {
                  window.__capturing = true;
                  const original = URL.createObjectURL.bind(URL);
                  URL.createObjectURL = (blob) => { window.__exports.push(blob); return original(blob); };
                }
                """)
        }

        /// The last exported Blob's text, or its bytes.
        static func exported(_ browser: WebDriver, bytes: Bool = false) async throws -> Any? {
            try await browser.wait(until: "return window.__exports.length > 0", "an export")
            return try await browser.run(bytes
                ? "return window.__exports.at(-1).arrayBuffer().then(b => Array.from(new Uint8Array(b)))"
                : "return window.__exports.at(-1).text()")
        }

        static func setQuery(_ browser: WebDriver, _ text: String) async throws {
            try await browser.run("const e = document.getElementById('sql-text'); e.value = arguments[0]; e.dispatchEvent(new Event('input'));", [text])
        }

        @Test("SQL grid, refusal at the checker's position, CSV/JSON export; live metrics and a change arriving; blobs up, down, public, private, deleted; a reader's refusals explained",
              arguments: Backend.allCases)
        func tools(_ backend: Backend) async throws {
            try await ConsolePage.with(backend) { page in
                let browser = page.browser
                let started = ContinuousClock.now
                try await page.signIn(TestAccounts.admin)

                // ── SQL: a result grid.
                let query = #"SELECT personID, lastName, 'a, "b"' AS note FROM Person WHERE personID <= 3 ORDER BY personID"#
                try await page.open("#/sql/cardealer")
                try await page.waitLoaded("the SQL editor", and: "!!document.getElementById('sql-text')")
                try await Self.setQuery(browser, query)
                try await page.resetLoaded()
                try await browser.click("form.sql-form button[type=submit]")
                try await page.waitLoaded("the result grid", and: "document.querySelectorAll('.sql-grid tbody tr').length === 3")
                let headers = try await browser.run("return [...document.querySelectorAll('.sql-grid thead th')].map(th => th.textContent)") as? [String]
                #expect(headers == ["personID", "lastName", "note"])
                #expect(try await browser.text(".sql-status").hasPrefix("3 rows"))
                try await page.shot("sql-result")
                try await page.expectLabelled("the SQL editor")

                // The same query's answer, for the exports.
                let body = try JSONSerialization.data(withJSONObject: ["sql": query])
                let answer = try await page.client.execute(uri: "/cardealer/$sql", method: .post, headers: Self.admin + [.contentType: "application/json"],
                                                           body: ByteBuffer(bytes: Array(body)))
                let table = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView)) as? [String: Any])
                let rows = try #require(table["rows"] as? [[Any]])
                func cell(_ value: Any) -> String {
                    let text = "\(value)"
                    return text.contains(where: { ",\"\r\n".contains($0) }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
                }
                let expectedCSV = (["personID,lastName,note"] + rows.map { $0.map(cell).joined(separator: ",") }).joined(separator: "\r\n") + "\r\n"
                try await Self.captureExports(browser)
                try await browser.click(".sql-actions button:nth-of-type(2)")
                #expect(try await Self.exported(browser) as? String == expectedCSV)
                try await Self.captureExports(browser)
                try await browser.click(".sql-actions button:nth-of-type(3)")
                let json = try #require(try await Self.exported(browser) as? String)
                let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
                #expect(objects.count == rows.count)
                for (object, row) in zip(objects, rows) {
                    #expect("\(object["personID"] ?? "")" == "\(row[0])" && object["lastName"] as? String == row[1] as? String && object["note"] as? String == #"a, "b""#)
                }

                // A refused query: the message, the caret at line 2, column 3, the line marked.
                try await Self.setQuery(browser, "SELECT lastName,\n  nope FROM Person")
                try await page.resetLoaded()
                try await browser.click("form.sql-form button[type=submit]")
                try await page.waitLoaded("the refusal", and: "!!document.querySelector('.sql-caret')")
                let error = try await browser.text(".sql-output .error")
                #expect(error.contains("nope") && error.contains("line 2, column 3"), "\(error)")
                let caret = try await browser.run("""
                    const e = document.getElementById('sql-text');
                    return [document.activeElement === e, e.selectionStart, e.getAttribute('aria-invalid'),
                            document.querySelector('.sql-gutter .marked').textContent, document.querySelector('.sql-caret .caret').textContent];
                    """) as? [Any]
                #expect(caret?[0] as? Bool == true)
                #expect(caret?[1] as? Int == "SELECT lastName,\n  ".count)
                #expect(caret?[2] as? String == "true" && caret?[3] as? String == "2" && caret?[4] as? String == "  ^")
                try await page.shot("sql-error")

                // ── Live: readiness and the metrics summary with its chart (after a second sample).
                try await page.open("#/live")
                try await page.waitLoaded("the live overview", and: "!!document.querySelector('.live-tiles')")
                #expect(try await browser.text(".live-status").hasPrefix("Ready"))
                // Some traffic from another client, so that the next sample has requests to show.
                for _ in 0..<40 { _ = try await page.client.get("/cardealer/Person(1)", headers: Self.admin) }
                try await browser.wait(until: "return !!document.querySelector('.live-chart rect.requests') && document.querySelector('.live-tile dd strong').textContent !== '0.00'",
                                       timeout: .seconds(8), "the chart's second sample with the requests")
                let tiles = try await browser.run("return [...document.querySelectorAll('.live-tile dt')].map(dt => dt.textContent)") as? [String] ?? []
                #expect(tiles == ["Requests/s", "Errors (5xx)", "Latency p50", "Latency p99", "SQL statements/s", "Pool waits"], "\(tiles)")
                let p50 = try await browser.text(".live-tile:nth-child(3) dd strong")
                #expect(p50.hasSuffix("ms"), "\(p50)")
                let pool = try await browser.text(".live-tile:nth-child(6) dd")
                // Both databases time their leases (SQLite's readers, scanners and writer; PostgreSQL's pool).
                #expect(pool.contains("over 1 ms") && pool.contains("connection leases"), "\(pool)")
                try await page.shot("live-overview")
                try await page.expectLabelled("the live overview")

                // A row inserted by another client arrives on the set's live screen, reached within
                // the page: the overview's refreshing stops when its fragment is left.
                try await page.resetLoaded()
                try await browser.run("location.hash = '#/live/cardealer/Person'")
                try await page.waitLoaded("the stream's start", and: "document.querySelector('.live-state')?.textContent.startsWith('Listening')")
                let polls = "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/metrics')).length"
                let pollsBefore = try await browser.run(polls) as? Int
                try await Task.sleep(for: .milliseconds(3500))
                #expect(try await browser.run(polls) as? Int == pollsBefore, "the overview kept polling /metrics after it was left")
                let inserted = try await page.client.execute(uri: "/cardealer/Person", method: .post, headers: Self.admin + [.contentType: "application/json"],
                                                             body: ByteBuffer(string: #"{"firstName":"Ada","lastName":"Livewire"}"#))
                #expect(inserted.status == .created, "\(inserted.text.prefix(300))")
                let sent = ContinuousClock.now
                try await browser.wait(until: "return [...document.querySelectorAll('.live-feed tbody td')].some(td => td.textContent === 'Livewire')",
                                       timeout: .seconds(5), "the inserted row on the live screen")
                print("Console: a change reached the live screen (\(backend)) \(ContinuousClock.now - sent) after the insert answered")
                #expect(try await browser.text(".live-feed tbody tr:first-child td:nth-child(2)") == "changed")
                try await page.shot("live-feed")
                try await page.expectLabelled("a set's live changes")

                // ── Blobs: a new private container, made public.
                let container = "console-tools"
                try await page.open("#/blobs")
                try await page.waitLoaded("the containers", and: "!!document.querySelector('form.blobs-create')")
                try await browser.type(container, into: "#blobs-new-name")
                try await page.resetLoaded()
                try await browser.click("form.blobs-create button[type=submit]")
                let row = "tr[data-container=\"\(container)\"]"
                try await page.waitLoaded("the new container", and: "!!document.querySelector('\(row)')")
                #expect(try await browser.text("\(row) .blobs-access") == "private")
                try await page.resetLoaded()
                try await browser.click("\(row) .blobs-actions button:first-child")
                try await page.waitLoaded("the container made public", and: "document.querySelector('\(row) .blobs-access')?.textContent === 'public'")
                #expect(try await page.client.get("/blobs/\(container)").status == .ok)
                try await page.shot("blobs-containers")
                try await page.expectLabelled("the containers")

                // Upload through the file input, and by a dropped file.
                let content = BlobTestData.binary(3000)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-console-\(UUID().uuidString.prefix(8))/photo.bin")
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
                try Data(content).write(to: file)
                try await page.open("#/blobs/\(container)")
                try await page.waitLoaded("the empty container", and: "!!document.querySelector('.blobs-drop')")
                try await page.resetLoaded()
                try await browser.type(file.path, into: "#blobs-files", clearing: false)
                try await page.waitLoaded("the uploaded file", and: "!!document.querySelector('tr[data-blob=\"photo.bin\"]')")
                try await browser.type("dropped/", into: "#blobs-folder")
                try await page.resetLoaded()
                try await browser.run("""
                    const data = new DataTransfer();
                    data.items.add(new File(['dropped text'], 'note.txt', { type: 'text/plain' }));
                    document.querySelector('.blobs-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
                    """)
                try await page.waitLoaded("the dropped file", and: "!!document.querySelector('tr[data-blob=\"dropped/note.txt\"]')")
                let names = try await browser.run("return [...document.querySelectorAll('tr[data-blob]')].map(tr => tr.dataset.blob)") as? [String]
                #expect(names == ["dropped/note.txt", "photo.bin"])
                let dropped = try await page.client.get("/blobs/\(container)/dropped/note.txt")
                #expect(dropped.text == "dropped text" && dropped.headers[.contentType] == "text/plain")
                #expect(try await page.client.get("/blobs/\(container)/photo.bin").bytes == content)
                try await page.shot("blobs-container")
                try await page.expectLabelled("a container's blobs")

                // At a phone's width each screen fits: nothing wider than the window but the tables' own scrolling.
                try await browser.resize(width: 390, height: 844)
                let fits = "return document.documentElement.scrollWidth <= window.innerWidth"
                #expect(try await browser.run(fits) as? Bool == true, "blobs at 390 px")
                try await page.shot("blobs-phone")
                try await page.open("#/sql/cardealer")
                try await page.waitLoaded("the SQL editor", and: "!!document.getElementById('sql-text')")
                #expect(try await browser.run(fits) as? Bool == true, "SQL at 390 px")
                try await page.shot("sql-phone")
                try await page.open("#/live")
                try await page.waitLoaded("the live overview", and: "!!document.querySelector('.live-tiles')")
                #expect(try await browser.run(fits) as? Bool == true, "live at 390 px")
                try await page.shot("live-phone")
                try await browser.resize(width: 1400, height: 900)
                try await page.open("#/blobs/\(container)")
                try await page.waitLoaded("the container again", and: "!!document.querySelector('tr[data-blob=\"photo.bin\"]')")

                // Download: the bytes the page hands to the browser are the file's.
                try await Self.captureExports(browser)
                try await browser.click("tr[data-blob=\"photo.bin\"] button[aria-label^=Download]")
                let downloaded = try await Self.exported(browser, bytes: true) as? [Int] ?? []
                #expect(downloaded.map(UInt8.init) == content)

                // Private again: anonymous callers are refused.
                try await page.resetLoaded()
                try await browser.click(".blobs-head button")
                try await page.waitLoaded("the container made private", and: "document.querySelector('.blobs-head .blobs-access').textContent === 'private'")
                #expect(try await page.client.get("/blobs/\(container)").status == .unauthorized)

                // Delete a blob (asked twice), then the container with the other.
                try await page.resetLoaded()
                try await browser.click("tr[data-blob=\"dropped/note.txt\"] button.danger")
                try await browser.click("tr[data-blob=\"dropped/note.txt\"] .blobs-confirm button.danger")
                try await page.waitLoaded("the blob deleted", and: "!document.querySelector('tr[data-blob=\"dropped/note.txt\"]')")
                #expect(try await page.client.get("/blobs/\(container)/dropped/note.txt", headers: Self.admin).status == .notFound)
                try await page.open("#/blobs")
                try await page.waitLoaded("the containers", and: "!!document.querySelector('\(row)')")
                try await page.resetLoaded()
                try await browser.click("\(row) button.danger")
                try await browser.click("\(row) .blobs-confirm button.danger")
                try await page.waitLoaded("the container deleted", and: "!document.querySelector('\(row)')")
                #expect(try await page.client.get("/blobs/\(container)", headers: Self.admin).status == .notFound)

                // ── A reader: the metrics and an upload are refused, and the screens say why.
                let shared = try await page.client.execute(uri: "/blobs/shared", method: .put, headers: Self.admin, body: nil)
                #expect(shared.status == .created)
                try await page.signIn(TestAccounts.reader)
                try await page.open("#/live")
                try await page.waitLoaded("the reader's live overview", and: "!!document.querySelector('.live-refused')")
                #expect(try await browser.text(".live-metrics .error").contains("neither the admin nor the metrics role"))
                #expect(try await browser.text(".live-refused").contains("admin or metrics role"))
                try await page.shot("live-refused")
                try await page.open("#/blobs")
                try await page.waitLoaded("the reader's containers", and: "!!document.querySelector('tr[data-container=\"shared\"]')")
                #expect(try await browser.run("return document.querySelector('form.blobs-create') === null && document.querySelectorAll('.blobs-actions').length === 0") as? Bool == true)
                try await page.open("#/blobs/shared")
                try await page.waitLoaded("the shared container", and: "!!document.querySelector('.blobs-drop')")
                try await page.resetLoaded()
                try await browser.type(file.path, into: "#blobs-files", clearing: false)
                try await page.waitLoaded("the refused upload", and: "!!document.querySelector('.blobs-message .error')")
                #expect(try await browser.text(".blobs-message .error").contains("may not write"))
                #expect(try await browser.text(".blobs-why").contains("editor or admin role"))
                #expect(try await page.client.get("/blobs/shared/photo.bin", headers: Self.admin).status == .notFound)
                try await page.shot("blobs-refused")

                try await page.expectCleanLog()
                print("Console: SQL, live and blobs screens (\(backend)) in \(ContinuousClock.now - started)")
            }
        }
    }
}
