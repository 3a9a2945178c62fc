import Foundation
import HTTPTypes
import NIOCore
import Hummingbird
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

// One at a time: the 64 MiB transfers and their fsyncs slowed the other uploads past the test client's
// 20-second answer limit on a loaded CI machine.
/// Uploads and downloads over real sockets: interrupted uploads leave nothing, damaged content is
/// never served whole, and a large blob moves through the server without being held in memory.
@Suite("Blobs: streaming", .serialized)
struct BlobStreamingTests {
    static let administrator = ["Authorization": AdministratorTestClient.authorization]

    /// A live server on a fresh copy of the test data, with its data directory.
    static func withLiveServer<T: Sendable>(
        _ backend: Backend, _ body: @Sendable (Int, StrataConfiguration, any TestClientProtocol) async throws -> T
    ) async throws -> T {
        try await PostgresSlots.run(backend) {
            let configuration = try await TestDatabases.shared.configuration(backend, demo: false)
            defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
            let app = try await buildApplication(configuration, logger: TestDatabases.logger)
            return try await app.test(.live) { client in
                try await body(try #require(client.port), configuration, AdministratorTestClient(base: client))
            }
        }
    }

    @Test("A client that hangs up halfway leaves no blob, no file or chunk rows, and the previous version intact", arguments: Backend.allCases)
    func interruptedUpload(_ backend: Backend) async throws {
        try await Self.withLiveServer(backend) { port, configuration, client in
            try await client.createContainer("files")
            try await RawUpload.putAndHangUp(port: port, path: "/blobs/files/new.bin", headers: Self.administrator,
                                             declared: 4 << 20, sent: 1 << 20)
            #expect(try await client.putBlob("/blobs/files/kept.bin", Array("version 1".utf8)).status == .created)
            try await RawUpload.putAndHangUp(port: port, path: "/blobs/files/kept.bin", headers: Self.administrator,
                                             declared: 4 << 20, sent: 2 << 20)
            // The server notices the closed connection asynchronously and then removes what the
            // upload wrote: a temporary file, or the chunk rows written so far.
            let stored = try await StoredBlobContent.settled(configuration)
            #expect(stored.hasNoLeftovers, "left of the interrupted uploads: \(stored)")
            #expect(try await client.get("/blobs/files/new.bin").status == .notFound)
            #expect(try await client.get("/blobs/files/kept.bin").text == "version 1")
            let names = try await client.get("/blobs/files").json["blobs"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(names == ["kept.bin"])
            #expect(try await StoredBlobContent.of(configuration).objects == 1)
        }
    }

    @Test("Damaged content: a changed byte cuts the download short of Content-Length; a changed size is a 500 that says so",
          arguments: Backend.allCases)
    func damagedContent(_ backend: Backend) async throws {
        try await Self.withLiveServer(backend) { port, configuration, client in
            try await client.createContainer("files", access: "public-read")
            let content = BlobTestData.binary(600_000)
            #expect(try await client.putBlob("/blobs/files/d.bin", content).status == .created)
            try await BlobDamage.flipByte(at: 300_000, configuration)

            let damaged = try await RawHTTP.get(port: port, path: "/blobs/files/d.bin")
            #expect(damaged.status == 200)
            #expect(damaged.bytes < content.count, "the whole damaged body was sent")
            // Ranges are checked against the size only, and still answer.
            let range = try await client.execute(uri: "/blobs/files/d.bin", method: .get, headers: [.range: "bytes=0-99"], body: nil)
            #expect(range.status == .partialContent)
            #expect(range.bytes == Array(content.prefix(100)))

            try await BlobDamage.truncate(to: 10, configuration)
            let truncated = try await client.get("/blobs/files/d.bin")
            #expect(truncated.status == .internalServerError)
            #expect(truncated.odataError?.message.contains("damaged") == true)
        }
    }

    @Test("The file store's sweep at start removes leftovers of a crash, and only old ones (PostgresBlobStoreTests: the same in PostgreSQL)")
    func sweep() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sweep-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = FileBlobStore(root: root, logger: TestDatabases.logger)
        try await store.prepare()
        let kept = try await store.write(AsyncStream { $0.yield(ByteBuffer(string: "kept")); $0.finish() }, limit: 100)
        let orphan = try await store.write(AsyncStream { $0.yield(ByteBuffer(string: "orphan")); $0.finish() }, limit: 100)
        let partial = root.appendingPathComponent("tmp/crashed.part")
        _ = FileManager.default.createFile(atPath: partial.path, contents: Data("partial".utf8))
        #expect(try await store.sweep(referenced: [kept.id], olderThan: .seconds(3600)) == 0)
        let old = Date(timeIntervalSinceNow: -7200)
        for path in [partial.path, store.path(of: orphan.id), store.path(of: kept.id)] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }
        #expect(try await store.sweep(referenced: [kept.id], olderThan: .seconds(3600)) == 2)
        #expect(try await store.open(kept.id) != nil)
        #expect(try await store.open(orphan.id) == nil)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test("64 MiB up and down through a server process: its memory grows far less than the blob", arguments: Backend.allCases)
    func largeBlobMemory(_ backend: Backend) async throws {
        let size = 64 << 20
        let configuration = try await TestDatabases.shared.configuration(backend, demo: false)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let arguments = StrataProcess.serveArguments(configuration)
        let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: arguments)
        defer { server.kill() }
        #expect(try await server.request(.put, "/blobs/big").status == .created)
        // Warm up: the first upload and download load code and allocate pools.
        _ = try await RawUpload.put(port: server.port, path: "/blobs/big/warm", headers: Self.administrator, size: 1 << 20)
        _ = try await RawHTTP.get(port: server.port, path: "/blobs/big/warm")

        let before = server.residentMemory
        let peak = NIOLockedValueBox(before)
        let peakAll = NIOLockedValueBox(before)
        let measure: @Sendable (Int) -> Void = { _ in
            let now = server.residentMemory
            peak.withLockedValue { $0 = max($0, now) }
            peakAll.withLockedValue { $0 = max($0, now) }
        }
        let started = ContinuousClock.now
        let upload = try await RawUpload.put(port: server.port, path: "/blobs/big/blob.bin", headers: Self.administrator,
                                             size: size, onProgress: measure)
        let uploadTime = ContinuousClock.now - started
        #expect(upload.status == 201, "\(upload.text.prefix(300))")
        let uploadGrowth = peak.withLockedValue { $0 } - before

        peak.withLockedValue { $0 = server.residentMemory }
        let downloadBefore = peak.withLockedValue { $0 }
        let downloadStarted = ContinuousClock.now
        let download = try await RawHTTP.get(port: server.port, path: "/blobs/big/blob.bin", onChunk: measure)
        let downloadTime = ContinuousClock.now - downloadStarted
        #expect(download.status == 401, "the container is private; anonymous reads are refused")
        _ = download

        // Downloads need credentials on a private container: open it up for the raw client.
        #expect(try await server.request(.put, "/blobs/big?access=public-read").status == .noContent)
        let readStarted = ContinuousClock.now
        let readable = try await RawHTTP.get(port: server.port, path: "/blobs/big/blob.bin", onChunk: measure)
        let readTime = ContinuousClock.now - readStarted
        #expect(readable.status == 200)
        #expect(readable.bytes == size)
        let downloadGrowth = peak.withLockedValue { $0 } - downloadBefore

        // Ranges at offsets that are no chunk's start, to the end, and of the last bytes.
        peak.withLockedValue { $0 = server.residentMemory }
        let rangesBefore = peak.withLockedValue { $0 }
        for (header, length) in [("bytes=1000003-9388610", 8_388_608), ("bytes=\(size - 5_000_001)-", 5_000_001), ("bytes=-777777", 777_777)] {
            let part = try await RawHTTP.get(port: server.port, path: "/blobs/big/blob.bin", headers: ["Range": header], onChunk: measure)
            #expect(part.status == 206, "\(header)")
            #expect(part.bytes == length, "\(header)")
        }
        let rangesGrowth = peak.withLockedValue { $0 } - rangesBefore
        // The warm-up blob and this one, as files or as rows (none of them files on PostgreSQL).
        #expect(try await StoredBlobContent.of(configuration).objects == 2)
        #expect(BlobTestData.objectFiles(in: configuration.dataDirectory).count == (backend == .sqlite ? 2 : 0))
        let properties = try await server.request(.get, "/blobs/big?prefix=blob")
        #expect(properties.text.contains("\"size\":\(size)"))

        print("blob streaming (\(backend)): 64 MiB upload grew server RSS by \(uploadGrowth / 1024) KiB in \(uploadTime) (peak RSS \(peakAll.withLockedValue { $0 } / 1024) KiB); download grew it by \(downloadGrowth / 1024) KiB in \(readTime), three ranges by \(rangesGrowth / 1024) KiB (refused read took \(downloadTime))")
        #expect(uploadGrowth < size / 4, "upload grew memory by \(uploadGrowth / 1_000_000) MB for a \(size / 1_000_000) MB blob")
        // RSS also counts what malloc's per-thread arenas keep of freed 128 KiB chunks: alone a
        // download grows it by 1-7 MB, in a loaded full-suite run once by 19 MB. A server that
        // buffered the blob would grow by at least its 64 MiB, so half of it still tells them apart.
        #expect(downloadGrowth < size / 2, "download grew memory by \(downloadGrowth / 1_000_000) MB for a \(size / 1_000_000) MB blob")
        #expect(rangesGrowth < size / 2, "range reads grew memory by \(rangesGrowth / 1_000_000) MB for a \(size / 1_000_000) MB blob")
    }
}
