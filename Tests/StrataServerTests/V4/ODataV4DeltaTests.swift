import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
import Testing

/// OData V4's delta (issue 38, point 6): `Prefer: odata.track-changes` gives `@odata.deltaLink`
/// on the last page; following it gives the changed entities and deleted-entity entries in 4.0's
/// JSON delta format, from the same change log, tokens and rights as V2's `__delta`.
@Suite("OData V4: delta links")
struct ODataV4DeltaTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]
    static let tracking = v4 + FeedFixtures.trackChanges
    static let writing = v4 + [.contentType: "application/json"]

    @Test("Inserted, changed and deleted rows since the delta link, in V4's delta format; pages of a first read keep tracking",
          arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, pageSize: 3, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            // Four rows, pages of three: the first page links to the second, which carries the delta link.
            let first = try await client.execute(uri: "/feed/Item?$select=id,name,price", method: .get, headers: Self.tracking)
            #expect(first.status == .ok)
            #expect(first.headers[HTTPField.Name("Preference-Applied")!] == "odata.track-changes")
            #expect(first.headers[HTTPField.Name("OData-Version")!] == "4.0")
            #expect(first.json["@odata.deltaLink"] == nil)
            let next = try #require(first.json["@odata.nextLink"]?.stringValue)
            let second = try await client.execute(uri: FeedFixtures.relative(next), method: .get, headers: Self.v4)
            #expect((first.json["value"]?.arrayValue?.count ?? 0) + (second.json["value"]?.arrayValue?.count ?? 0) == 4)
            let delta = try #require(second.json["@odata.deltaLink"]?.stringValue, "\(second.text)")

            let empty = try await client.execute(uri: FeedFixtures.relative(delta), method: .get, headers: Self.v4)
            #expect(empty.status == .ok && empty.json["value"]?.arrayValue?.isEmpty == true)
            #expect(empty.json["@odata.context"]?.stringValue == "http://localhost/feed/$metadata#Item/$delta")

            let created = try await client.execute(uri: "/feed/Item", method: .post, headers: Self.writing,
                                                   body: FeedFixtures.body(#"{"owner":"cat","name":"rug","price":20}"#))
            #expect(created.status == .created, "\(created.text)")
            let patched = try await client.execute(uri: "/feed/Item(1)", method: .patch, headers: Self.writing,
                                                   body: FeedFixtures.body(#"{"price":45}"#))
            #expect(patched.status == .noContent)
            #expect(try await client.execute(uri: "/feed/Item(4)", method: .delete, headers: Self.v4).status == .noContent)

            let changes = try await client.execute(uri: FeedFixtures.relative(delta), method: .get, headers: Self.v4)
            #expect(changes.status == .ok)
            let entries = try #require(changes.json["value"]?.arrayValue)
            let entities = entries.filter { $0["@odata.context"] == nil }
            #expect(Set(entities.compactMap { $0["name"]?.stringValue }) == ["lamp", "rug"])
            #expect(entities.first { $0["name"]?.stringValue == "lamp" }?["price"] == .number("45"))
            #expect(entities.allSatisfy { $0["owner"] == nil }, "the query's $select shapes the changes")
            let deleted = entries.filter { $0["@odata.context"] != nil }
            #expect(deleted.count == 1)
            #expect(deleted.first?["@odata.context"]?.stringValue == "http://localhost/feed/$metadata#Item/$deletedEntity")
            #expect(deleted.first?["id"]?.stringValue == "http://localhost/feed/Item(4)")
            #expect(deleted.first?["reason"]?.stringValue == "deleted")
            let after = try #require(changes.json["@odata.deltaLink"]?.stringValue)
            #expect(try await client.execute(uri: FeedFixtures.relative(after), method: .get, headers: Self.v4).json["value"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("A token that is not the server's, or was issued for another query, is 410 Gone with V4's error body", arguments: Backend.allCases)
    func gone(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { client in
            let first = try await client.execute(uri: "/feed/Item", method: .get, headers: Self.tracking)
            let delta = try #require(first.json["@odata.deltaLink"]?.stringValue)
            let forged = FeedFixtures.relative(delta).replacingOccurrences(of: "!deltatoken=", with: "!deltatoken=x")
            let refused = try await client.execute(uri: forged, method: .get, headers: Self.v4)
            #expect(refused.status == .gone)
            #expect(refused.json["error"]["message"]?.stringValue != nil, "\(refused.text)")
            let otherQuery = FeedFixtures.relative(delta).replacingOccurrences(of: "/feed/Item?", with: "/feed/Item?$filter=price%20gt%201&")
            #expect(try await client.execute(uri: otherQuery, method: .get, headers: Self.v4).status == .gone)
        }
    }
}
