import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
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

/// Listing with prefix and paging, and the life of containers.
@Suite("Blobs: listing and containers")
struct BlobListingTests {
    static let names = ["a", "a/1", "a/2", "a/2/x", "a0", "b", "b/é", "b/z", "ba", "é", "日本"]

    @Test("Pages of blobs in byte order of their names: prefix, limit and marker; every blob once", arguments: Backend.allCases)
    func paging(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            for name in Self.names.shuffled() {
                let path = "/blobs/files/" + PercentEncoding.encodeQueryValue(name)
                #expect(try await client.putBlob(path, Array(name.utf8)).status == .created)
            }
            let sorted = Self.names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            let all = try await client.get("/blobs/files")
            #expect(all.json["blobs"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == sorted)
            #expect(all.json["nextMarker"] == .null)
            #expect(all.json["blobs"][0]["size"] == .number("1"))
            #expect(all.json["blobs"][0]["etag"] == .string("\"\(BlobTestData.sha256(Array("a".utf8)))\""))

            for (prefix, limit) in [("", 3), ("a", 2), ("a/", 1), ("b", 2), ("é", 5), ("zz", 4)] {
                var seen: [String] = []
                var marker: String?
                var pages = 0
                repeat {
                    var uri = "/blobs/files?limit=\(limit)&prefix=\(PercentEncoding.encodeQueryValue(prefix))"
                    if let marker { uri += "&marker=\(PercentEncoding.encodeQueryValue(marker))" }
                    let page = try await client.get(uri)
                    #expect(page.status == .ok)
                    let names = page.json["blobs"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
                    #expect(names.count <= limit)
                    seen += names
                    marker = page.json["nextMarker"]?.stringValue
                    pages += 1
                } while marker != nil && pages < 20
                #expect(seen == sorted.filter { $0.hasPrefix(prefix) }, "prefix \(prefix), limit \(limit)")
            }
        }
    }

    @Test("Containers: created 201 (private unless asked), listed, opened up, refused removal while not empty, forced removal deletes the files",
          arguments: Backend.allCases)
    func containers(_ backend: Backend) async throws {
        let served = NIOLockedValueBox<StrataConfiguration?>(nil)
        try await withServer(backend, demo: false, configure: { configuration in
            served.withLockedValue { $0 = configuration }
        }) { client in
            let configuration = try #require(served.withLockedValue { $0 })
            let created = try await client.createContainer("reports")
            #expect(created.json["access"] == .string("private"))
            #expect(created.headers[.location] == "/blobs/reports")
            try await client.createContainer("pictures", access: "public-read")
            let again = try await client.execute(uri: "/blobs/reports", method: .put, headers: [:], body: nil)
            #expect(again.status == .noContent)
            let list = try await client.get("/blobs")
            #expect(list.json["containers"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["pictures", "reports"])
            #expect(list.json["containers"][1]["access"] == .string("private"))

            #expect(try await client.send(.put, "/blobs/reports?access=public-read").status == .noContent)
            #expect(try await client.get("/blobs/reports").json["access"] == .string("public-read"))

            _ = try await client.putBlob("/blobs/reports/q1.pdf", [1, 2, 3])
            _ = try await client.putBlob("/blobs/reports/q2.pdf", [4, 5, 6])
            let refused = try await client.send(.delete, "/blobs/reports")
            #expect(refused.status == .conflict)
            #expect(refused.odataError?.message.contains("force=true") == true)
            #expect(try await client.get("/blobs/reports/q1.pdf").status == .ok)

            #expect(try await client.send(.delete, "/blobs/pictures").status == .noContent)
            #expect(try await StoredBlobContent.of(configuration).objects == 2)
            #expect(try await client.send(.delete, "/blobs/reports?force=true").status == .noContent)
            let stored = try await StoredBlobContent.of(configuration)
            #expect(stored.objects == 0)
            // PostgreSQL keeps deleted content for downloads that opened it, for its grace period.
            #expect(stored.deleted == (backend == .postgres ? 2 : 0), "\(stored)")
            #expect(try await client.get("/blobs/reports/q1.pdf").status == .notFound)
            #expect(try await client.send(.delete, "/blobs/reports").status == .notFound)
            #expect(try await client.get("/blobs").json["containers"] == .array([]))
        }
    }

    @Test("Prefix ranges: the successor of a prefix bounds exactly the names that start with it")
    func successor() {
        #expect(BlobNames.successor(ofPrefix: "a") == "b")
        #expect(BlobNames.successor(ofPrefix: "a/") == "a0")
        #expect(BlobNames.successor(ofPrefix: "\u{D7FF}") == "\u{E000}")
        #expect(BlobNames.successor(ofPrefix: "x\u{10FFFF}") == "y")
        #expect(BlobNames.successor(ofPrefix: "\u{10FFFF}") == nil)
    }
}
