import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Conditional requests: 304 for a current copy, 412 for a refused precondition, nothing changed.
@Suite("Blobs: conditional requests")
struct BlobConditionTests {
    @Test("GET: If-None-Match and If-Modified-Since give 304; If-Match and If-Unmodified-Since give 412", arguments: Backend.allCases)
    func reads(_ backend: Backend) async throws {
        let clock = TestClock()
        try await withServer(backend, demo: false, configure: { $0.auth.now = { clock.now } }) { client in
            try await client.createContainer("files")
            let put = try await client.putBlob("/blobs/files/c.txt", Array("hello".utf8))
            let etag = try #require(put.headers[.eTag])
            let modified = try #require(put.headers[.lastModified])
            #expect(modified == HTTPDate.format(Int64(clock.now.timeIntervalSince1970)))
            func get(_ headers: HTTPFields) async throws -> TestResponse {
                try await client.execute(uri: "/blobs/files/c.txt", method: .get, headers: headers, body: nil)
            }
            let notModified = try await get([.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)
            #expect(notModified.headers[.eTag] == etag)
            #expect(try await get([.ifNoneMatch: "\"other\", \(etag)"]).status == .notModified)
            #expect(try await get([.ifNoneMatch: "*"]).status == .notModified)
            #expect(try await get([.ifNoneMatch: "\"other\""]).status == .ok)
            #expect(try await get([.ifModifiedSince: modified]).status == .notModified)
            #expect(try await get([.ifModifiedSince: HTTPDate.format(Int64(clock.now.timeIntervalSince1970) - 1)]).status == .ok)
            // If-None-Match wins over If-Modified-Since; an unreadable date is ignored.
            #expect(try await get([.ifNoneMatch: "\"other\"", .ifModifiedSince: modified]).status == .ok)
            #expect(try await get([.ifModifiedSince: "yesterday"]).status == .ok)
            #expect(try await get([.ifMatch: etag]).status == .ok)
            let refused = try await get([.ifMatch: "\"other\""])
            #expect(refused.status == .preconditionFailed)
            #expect(refused.odataError?.message.contains(etag) == true)
            #expect(try await get([.ifUnmodifiedSince: HTTPDate.format(Int64(clock.now.timeIntervalSince1970) - 60)]).status == .preconditionFailed)
            #expect(try await get([.ifUnmodifiedSince: modified]).status == .ok)
            #expect(try await get([.ifMatch: "no quotes"]).status == .badRequest)
        }
    }

    @Test("PUT and DELETE: If-None-Match: * creates only, If-Match replaces or deletes only the version named", arguments: Backend.allCases)
    func writes(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            let path = "/blobs/files/w.txt"
            // If-Match on a blob that does not exist: nothing to match.
            #expect(try await client.putBlob(path, Array("x".utf8), headers: [.ifMatch: "*"]).status == .preconditionFailed)
            #expect(try await client.get(path).status == .notFound)

            let first = try await client.putBlob(path, Array("one".utf8), headers: [.ifNoneMatch: "*"])
            #expect(first.status == .created)
            let firstTag = try #require(first.headers[.eTag])
            #expect(try await client.putBlob(path, Array("two".utf8), headers: [.ifNoneMatch: "*"]).status == .preconditionFailed)
            #expect(try await client.get(path).text == "one")

            let second = try await client.putBlob(path, Array("two".utf8), headers: [.ifMatch: firstTag])
            #expect(second.status == .ok)
            let secondTag = try #require(second.headers[.eTag])
            // A stale tag changes nothing.
            #expect(try await client.putBlob(path, Array("three".utf8), headers: [.ifMatch: firstTag]).status == .preconditionFailed)
            #expect(try await client.send(.delete, path, headers: [.ifMatch: firstTag]).status == .preconditionFailed)
            #expect(try await client.get(path).text == "two")
            #expect(try await client.send(.delete, path, headers: [.ifMatch: secondTag]).status == .noContent)
            #expect(try await client.get(path).status == .notFound)
        }
    }

    @Test("HTTP dates: written as IMF-fixdate, read in all three forms")
    func dates() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_709_210_096) == "Thu, 29 Feb 2024 12:34:56 GMT")
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(text) == 784_111_777, "\(text)")
        }
        #expect(HTTPDate.parse("06 Nov 1994") == nil)
        #expect(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
        #expect(BlobJSON.iso8601(milliseconds: 1_332_167_273_729) == "2012-03-19T14:27:53.729Z")
    }
}
