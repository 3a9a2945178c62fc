import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
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

/// Blobs in and out: bytes, checksums, headers, content types, replacing and deleting.
@Suite("Blobs: round trip")
struct BlobRoundTripTests {
    @Test("Binary content comes back byte for byte; ETag is its SHA-256; HEAD tells the same without a body",
          arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            let content = BlobTestData.binary(3 * 1024 * 1024 + 17)
            let put = try await client.putBlob("/blobs/files/data/sample.bin", content)
            #expect(put.status == .created)
            let hash = BlobTestData.sha256(content)
            #expect(put.headers[.eTag] == "\"\(hash)\"")
            #expect(put.headers[.location] == "/blobs/files/data/sample.bin")
            #expect(put.json["size"] == .number(String(content.count)))
            #expect(put.json["contentType"] == .string("application/octet-stream"))

            let get = try await client.get("/blobs/files/data/sample.bin")
            #expect(get.status == .ok)
            #expect(get.bytes == content)
            #expect(BlobTestData.sha256(get.bytes) == hash)
            #expect(get.headers[.eTag] == "\"\(hash)\"")
            #expect(get.headers[.contentLength] == String(content.count))
            #expect(get.headers[.acceptRanges] == "bytes")
            let lastModified = try #require(get.headers[.lastModified])
            #expect(HTTPDate.parse(lastModified) != nil)

            let head = try await client.execute(uri: "/blobs/files/data/sample.bin", method: .head, headers: [:], body: nil)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(content.count))
            #expect(head.headers[.eTag] == get.headers[.eTag])

            // An empty blob is a blob too.
            #expect(try await client.putBlob("/blobs/files/empty", []).status == .created)
            let empty = try await client.get("/blobs/files/empty")
            #expect(empty.status == .ok && empty.bytes.isEmpty)
            #expect(empty.headers[.eTag] == "\"\(BlobTestData.sha256([]))\"")
        }
    }

    @Test("Names with slashes, spaces and non-ASCII letters; a replaced blob answers 200 and serves the new bytes; DELETE removes it and its file",
          arguments: Backend.allCases)
    func namesReplaceDelete(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            let path = "/blobs/files/a%20b/%C3%A9t%C3%A9/x.txt"
            #expect(try await client.putBlob(path, Array("first".utf8)).status == .created)
            #expect(try await client.get(path).text == "first")
            let listed = try await client.get("/blobs/files")
            #expect(listed.json["blobs"][0]["name"] == .string("a b/été/x.txt"))

            let replaced = try await client.putBlob(path, Array("second version".utf8))
            #expect(replaced.status == .ok)
            #expect(try await client.get(path).text == "second version")

            #expect(try await client.send(.delete, path).status == .noContent)
            #expect(try await client.get(path).status == .notFound)
            #expect(try await client.send(.delete, path).status == .notFound)
        }
    }

    @Test("Content type: as sent, else guessed from the extension, else octet-stream; a malformed one is 400", arguments: Backend.allCases)
    func contentTypes(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            _ = try await client.putBlob("/blobs/files/notes", Array("x".utf8), headers: [.contentType: "text/markdown; charset=utf-8"])
            #expect(try await client.get("/blobs/files/notes").headers[.contentType] == "text/markdown; charset=utf-8")
            _ = try await client.putBlob("/blobs/files/photo.JPG", [0xFF, 0xD8])
            #expect(try await client.get("/blobs/files/photo.JPG").headers[.contentType] == "image/jpeg")
            _ = try await client.putBlob("/blobs/files/data", [1])
            #expect(try await client.get("/blobs/files/data").headers[.contentType] == "application/octet-stream")
            let bad = try await client.putBlob("/blobs/files/bad", [1], headers: [.contentType: "not a type"])
            #expect(bad.status == .badRequest)
            #expect(bad.odataError?.code == "InvalidContentType")
        }
    }

    @Test("Bad names, unknown containers and parameters, wrong methods: a 4xx with an OData error that says why, never a 500",
          arguments: Backend.allCases)
    func badInput(_ backend: Backend) async throws {
        try await withServer(backend, demo: false) { client in
            try await client.createContainer("files")
            let cases: [(HTTPRequest.Method, String, HTTPResponse.Status, String)] = [
                (.put, "/blobs/AB", .badRequest, "InvalidContainerName"),
                (.put, "/blobs/-x-", .badRequest, "InvalidContainerName"),
                (.get, "/blobs/files/a/../b", .badRequest, "InvalidBlobName"),
                (.put, "/blobs/files/a%01b", .badRequest, "InvalidBlobName"),
                (.get, "/blobs/files/%zz", .badRequest, "BadRequest"),
                (.get, "/blobs/files/" + String(repeating: "n", count: 1025), .badRequest, "InvalidBlobName"),
                (.get, "/blobs/nothere/x", .notFound, "ResourceNotFound"),
                (.get, "/blobs/files/missing", .notFound, "BlobNotFound"),
                (.get, "/blobs/files?limit=0", .badRequest, "BadRequest"),
                (.get, "/blobs/files?limit=abc", .badRequest, "BadRequest"),
                (.get, "/blobs/files?colour=red", .badRequest, "BadRequest"),
                (.put, "/blobs/other?acess=public-read", .badRequest, "BadRequest"),
                (.put, "/blobs/other?access=world", .badRequest, "BadRequest"),
                (.delete, "/blobs/files?force=maybe", .badRequest, "BadRequest"),
                (.post, "/blobs/files/x", .methodNotAllowed, "MethodNotAllowed"),
                (.patch, "/blobs/files", .methodNotAllowed, "MethodNotAllowed"),
                (.delete, "/blobs", .methodNotAllowed, "MethodNotAllowed"),
                (.get, "/blobs/files/x", .notFound, "BlobNotFound"),
            ]
            for (method, uri, status, code) in cases {
                let response = try await client.execute(uri: uri, method: method, headers: [:], body: nil)
                #expect(response.status == status, "\(method) \(uri.prefix(60)): \(response.text)")
                #expect(response.odataError?.code == code, "\(method) \(uri.prefix(60)): \(response.text)")
                #expect(response.odataError?.message.isEmpty == false)
            }
            let wrongMethod = try await client.execute(uri: "/blobs/files/x", method: .post, headers: [:], body: nil)
            #expect(wrongMethod.headers[.allow] == "GET, HEAD, PUT, DELETE")
            let badTag = try await client.execute(uri: "/blobs/files/x", method: .get, headers: [.ifMatch: "unquoted"], body: nil)
            #expect(badTag.status == .notFound || badTag.status == .badRequest)
        }
    }

    @Test("A blob over maxBlobSize is refused with 413 and nothing is kept, with or without Content-Length", arguments: Backend.allCases)
    func tooLarge(_ backend: Backend) async throws {
        let served = NIOLockedValueBox<StrataConfiguration?>(nil)
        try await withServer(backend, demo: false, configure: { configuration in
            configuration.maxBlobSize = 1000
            served.withLockedValue { [configuration] in $0 = configuration }
        }) { client in
            try await client.createContainer("files")
            let declared = try await client.putBlob("/blobs/files/big", BlobTestData.binary(1001))
            #expect(declared.status == .contentTooLarge)
            #expect(declared.odataError?.message.contains("1000 bytes") == true)
            // A chunked body has no Content-Length; the limit applies as it streams.
            let stream = ByteBuffer(bytes: BlobTestData.binary(5000))
            let chunked = try await client.execute(uri: "/blobs/files/big", method: .put, headers: [.transferEncoding: "chunked"], body: stream)
            #expect(chunked.status == .contentTooLarge)
            #expect(try await client.get("/blobs/files/big").status == .notFound)
            #expect(try await StoredBlobContent.of(try #require(served.withLockedValue { $0 })) == StoredBlobContent())
            #expect(try await client.putBlob("/blobs/files/fits", BlobTestData.binary(1000)).status == .created)
        }
    }
}
