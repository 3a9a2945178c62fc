import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// OData delta links: `Prefer: odata.track-changes` gives a `__delta` link on the last page;
/// following it answers the changed entities (current values, shaped by the query) and tombstones.
@Suite("Feed: OData delta links")
struct FeedDeltaLinkTests {
    static func names(_ results: [JSONValue]) -> [String] {
        results.compactMap { $0[member: "name"]?.stringValue }.sorted()
    }

    static func tombstones(_ results: [JSONValue]) -> [String] {
        results.filter { $0[member: "@odata.context"] != nil }.compactMap { $0[member: "id"]?.stringValue }.map { String($0.split(separator: "/").last ?? "") }.sorted()
    }

    @Test("Inserted, changed and deleted rows since the delta link: current values and tombstones", arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let first = try await client.execute(uri: "/feed/Item", method: .get, headers: FeedFixtures.trackChanges)
            #expect(first.status == .ok)
            #expect(first.headers[HTTPField.Name("Preference-Applied")!] == "odata.track-changes")
            #expect(first.json.results.count == 4)
            let delta = try #require(first.json.d("__delta"))
            #expect(delta.contains("!deltatoken="))

            // Nothing changed yet: an empty delta and a new link.
            let empty = try await client.execute(uri: FeedFixtures.relative(delta), method: .get)
            #expect(empty.status == .ok)
            #expect(empty.json.results.isEmpty)

            let created = try await client.execute(uri: "/feed/Item", method: .post, headers: FeedFixtures.jsonHeaders,
                                                   body: FeedFixtures.body(#"{"owner":"cat","name":"rug","price":20}"#))
            #expect(created.status == .created)
            let merged = try await client.execute(uri: "/feed/Item(1)", method: .patch, headers: FeedFixtures.jsonHeaders,
                                                  body: FeedFixtures.body(#"{"price":45}"#))
            #expect(merged.status == .noContent)
            #expect(try await client.execute(uri: "/feed/Item(4)", method: .delete).status == .noContent)

            let changes = try await client.execute(uri: FeedFixtures.relative(delta), method: .get)
            #expect(changes.status == .ok)
            let results = changes.json.results
            #expect(Self.names(results) == ["lamp", "rug"])
            #expect(results.first { $0[member: "name"]?.stringValue == "lamp" }?[member: "price"] == .number("45"))
            #expect(Self.tombstones(results) == ["Item(4)"])
            #expect(results.contains { $0[member: "@odata.context"]?.stringValue == "$metadata#Item/$deletedEntity" })
            let next = try #require(changes.json.d("__delta"))

            // The new link starts after these changes; the old one still answers them all.
            #expect(try await client.execute(uri: FeedFixtures.relative(next), method: .get).json.results.isEmpty)
            #expect(Self.names(try await client.execute(uri: FeedFixtures.relative(delta), method: .get).json.results) == ["lamp", "rug"])
        }
    }

    @Test("$filter and $select shape the delta: a row leaving the filter is a tombstone, one entering it an entity", arguments: Backend.allCases)
    func shapedByQuery(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let query = "/feed/Item?$filter=price%20lt%20100&$select=id,name"
            let first = try await client.execute(uri: query, method: .get, headers: FeedFixtures.trackChanges)
            #expect(Self.names(first.json.results) == ["chair", "lamp"])
            let delta = try #require(first.json.d("__delta"))
            #expect(delta.contains("$filter="))
            // lamp leaves the filter, shelf enters it, desk changes outside it (nothing to say).
            for (id, price) in [(1, 500), (4, 10), (2, 301)] {
                let patched = try await client.execute(uri: "/feed/Item(\(id))", method: .patch, headers: FeedFixtures.jsonHeaders,
                                                       body: FeedFixtures.body(#"{"price":\#(price)}"#))
                #expect(patched.status == .noContent)
            }
            let changes = try await client.execute(uri: FeedFixtures.relative(delta), method: .get)
            let results = changes.json.results
            #expect(Self.names(results) == ["shelf"])
            #expect(results.first { $0[member: "name"] != nil }?[member: "price"] == nil, "price is not selected")
            #expect(Self.tombstones(results) == ["Item(1)", "Item(2)"])

            // The token is bound to its query: another $filter with it is refused.
            let token = try #require(delta.split(separator: "!deltatoken=").last)
            let other = try await client.execute(uri: "/feed/Item?$filter=price%20lt%20200&$select=id,name&!deltatoken=\(token)", method: .get)
            #expect(other.status == .gone)
            #expect(other.odataError?.code == "DeltaTokenGone")
        }
    }

    @Test("A delta larger than a page pages with __next; only the last page has __delta", arguments: Backend.allCases)
    func pagedDelta(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, pageSize: 5, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            // The first read pages too: its __next links carry the start of the delta.
            var page = try await client.execute(uri: "/feed/Item", method: .get, headers: FeedFixtures.trackChanges)
            #expect(page.json.d("__next") == nil)
            let delta = try #require(page.json.d("__delta"))
            for index in 0..<12 {
                let created = try await client.execute(uri: "/feed/Item", method: .post, headers: FeedFixtures.jsonHeaders,
                                                       body: FeedFixtures.body(#"{"owner":"ann","name":"n\#(index)","price":\#(index)}"#))
                #expect(created.status == .created)
            }
            var seen: [String] = []
            var link = delta
            var pages = 0
            while true {
                page = try await client.execute(uri: FeedFixtures.relative(link), method: .get)
                #expect(page.status == .ok)
                pages += 1
                seen += Self.names(page.json.results)
                if let next = page.json.d("__next") {
                    #expect(page.json.d("__delta") == nil)
                    link = next
                } else {
                    break
                }
            }
            #expect(pages == 3)
            #expect(seen.sorted() == (0..<12).map { "n\($0)" }.sorted())
            // A first read that pages: !deltastart on each __next, __delta on the last page.
            var first = try await client.execute(uri: "/feed/Item", method: .get, headers: FeedFixtures.trackChanges)
            var count = first.json.results.count
            while let next = first.json.d("__next") {
                #expect(next.contains("!deltastart="))
                first = try await client.execute(uri: FeedFixtures.relative(next), method: .get)
                count += first.json.results.count
            }
            #expect(count == 16)
            #expect(first.json.d("__delta") != nil)
        }
    }

    @Test("Damaged, forged and foreign tokens are 410 Gone with a message to read again", arguments: Backend.allCases)
    func goneTokens(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let first = try await client.execute(uri: "/feed/Item", method: .get, headers: FeedFixtures.trackChanges)
            let delta = try #require(first.json.d("__delta"))
            let token = String(try #require(delta.split(separator: "!deltatoken=").last))
            var flipped = Array(token.utf8)
            flipped[20] = flipped[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            for bad in ["AAAA", String(token.dropLast(6)), String(decoding: flipped, as: UTF8.self)] {
                let answer = try await client.execute(uri: "/feed/Item?!deltatoken=\(bad)", method: .get)
                #expect(answer.status == .gone, "\(bad)")
                #expect(answer.odataError?.code == "DeltaTokenGone")
                #expect(answer.odataError?.message.contains("again") == true)
            }
            // A token of another set is another query.
            #expect(try await client.execute(uri: "/feed/Tag?!deltatoken=\(token)", method: .get).status == .gone)
            #expect(try await client.execute(uri: "/feed/Item?!deltatoken=", method: .get).status == .badRequest)
        }
    }

    @Test("Reads the feed cannot follow get no delta link: $expand, $top, untracked sets", arguments: Backend.allCases)
    func notApplied(_ backend: Backend) async throws {
        let model = "tables:\n  Item: { track: true }\n"
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0, model: model) }) { client in
            for uri in ["/feed/Item?$top=2", "/feed/Tag"] {
                let answer = try await client.execute(uri: uri, method: .get, headers: FeedFixtures.trackChanges)
                #expect(answer.status == .ok, "\(uri)")
                #expect(answer.headers[HTTPField.Name("Preference-Applied")!] == nil, "\(uri)")
                #expect(answer.json.d("__delta") == nil, "\(uri)")
            }
            #expect(try await client.execute(uri: "/feed/Item", method: .get, headers: FeedFixtures.trackChanges).json.d("__delta") != nil)
        }
    }

    @Test("wait= on a delta link holds an empty delta until a change comes; the next link leaves wait out", arguments: Backend.allCases)
    func longPoll(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let delta = try #require(try await client.execute(uri: "/feed/Tag", method: .get, headers: FeedFixtures.trackChanges).json.d("__delta"))
            let started = ContinuousClock.now
            async let waited = client.execute(uri: FeedFixtures.relative(delta) + "&wait=20", method: .get)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await client.execute(uri: "/feed/Tag", method: .post, headers: FeedFixtures.jsonHeaders,
                                             body: FeedFixtures.body(#"{"label":"polled"}"#)).status == .created)
            let answer = try await waited
            #expect(answer.status == .ok)
            #expect(answer.json.results.compactMap { $0[member: "label"]?.stringValue } == ["polled"])
            #expect(ContinuousClock.now - started < .seconds(15))
            #expect(answer.json.d("__delta")?.contains("wait=") == false)
            #expect(try await client.execute(uri: FeedFixtures.relative(delta) + "&wait=61", method: .get).status == .badRequest)
        }
    }
}
