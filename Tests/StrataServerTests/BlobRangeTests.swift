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

/// `Range` requests: one range answered 206, several answered whole, unsatisfiable ones 416.
@Suite("Blobs: ranges")
struct BlobRangeTests {
    @Test("bytes=a-b, a-, -n, past the end, If-Range; 416 with Content-Range */size when unsatisfiable", arguments: Backend.allCases)
    func ranges(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            let content = BlobTestData.binary(1000)
            let etag = try #require(try await client.putBlob("/blobs/files/r.bin", content).headers[.eTag])
            func get(_ range: String, _ extra: HTTPFields = [:]) async throws -> TestResponse {
                var headers = extra
                headers[.range] = range
                return try await client.execute(uri: "/blobs/files/r.bin", method: .get, headers: headers, body: nil)
            }

            let satisfiable: [(String, Range<Int>)] = [
                ("bytes=0-9", 0..<10), ("bytes=990-", 990..<1000), ("bytes=-5", 995..<1000), ("bytes=500-5000", 500..<1000),
                ("bytes=-2000", 0..<1000), ("bytes=999-999", 999..<1000), (" BYTES = 10-19 ", 10..<20),
            ]
            for (header, expected) in satisfiable {
                let response = try await get(header)
                #expect(response.status == .partialContent, "\(header)")
                #expect(response.bytes == Array(content[expected]), "\(header)")
                #expect(response.headers[.contentRange] == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1000", "\(header)")
                #expect(response.headers[.contentLength] == String(expected.count))
                #expect(response.headers[.eTag] == etag)
            }
            // Several ranges, or another unit: the whole blob, as the RFC allows.
            for header in ["bytes=0-1,5-6", "items=0-1"] {
                let response = try await get(header)
                #expect(response.status == .ok, "\(header)")
                #expect(response.bytes == content)
            }
            for header in ["bytes=1000-", "bytes=5000-6000", "bytes=-0", "bytes=9-3", "bytes=x-", "bytes=1-y", "bytes="] {
                let response = try await get(header)
                #expect(response.status == .rangeNotSatisfiable, "\(header)")
                #expect(response.headers[.contentRange] == "bytes */1000", "\(header)")
                #expect(response.odataError?.code == "RangeNotSatisfiable")
            }
            // If-Range: the range applies while the client's version is current, else the whole blob.
            #expect(try await get("bytes=0-1", [.ifRange: etag]).status == .partialContent)
            #expect(try await get("bytes=0-1", [.ifRange: "\"old\""]).status == .ok)
            let head = try await client.execute(uri: "/blobs/files/r.bin", method: .head, headers: [.range: "bytes=0-99"], body: nil)
            #expect(head.status == .partialContent)
            #expect(head.headers[.contentLength] == "100")
            #expect(head.body.readableBytes == 0)
            // An empty blob has no satisfiable range.
            _ = try await client.putBlob("/blobs/files/empty", [])
            let empty = try await client.execute(uri: "/blobs/files/empty", method: .get, headers: [.range: "bytes=0-"], body: nil)
            #expect(empty.status == .rangeNotSatisfiable)
        }
    }

    @Test("Range parsing on its own")
    func parsing() throws {
        #expect(try ByteRange.parse(nil, size: 10) == nil)
        #expect(try ByteRange.parse("bytes=2-4", size: 10) == 2..<5)
        #expect(try ByteRange.parse("bytes=-3", size: 10) == 7..<10)
        #expect(try ByteRange.parse("bytes=8-", size: 10) == 8..<10)
        #expect(try ByteRange.parse("bytes=0-1, 3-4", size: 10) == nil)
        #expect(throws: ODataError.self) { try ByteRange.parse("bytes=10-", size: 10) }
        #expect(throws: ODataError.self) { try ByteRange.parse("bytes=99999999999999999999-", size: 10) }
    }
}
