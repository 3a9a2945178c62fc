import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// The PostgreSQL blob store on its own: chunked streaming, ranges that fetch only their chunks,
/// nothing left by failed uploads, deferred deletion, the sweep, two servers on one database,
/// and the upgrade that copies an earlier server's files. (Every blob test of the HTTP API runs on
/// PostgreSQL too, through this store.)
@Suite("Blobs: the PostgreSQL store")
struct PostgresBlobStoreTests {
    /// A store on a new PostgreSQL test database, reached over a pool of its own.
    static func withStore(_ body: @escaping @Sendable (PostgresBlobStore, SystemDatabase, PostgresLocation) async throws -> Void) async throws {
        try await withEmptyPostgresDatabase { _, location, _ in
            try await withSystemDatabase(location) { system in
                try await body(PostgresBlobStore(system: system, logger: TestDatabases.logger), system, location)
            }
        }
    }

    /// ``withStore(_:)`` with 1000-byte chunks and a clock the test moves, for the time-bound rules
    /// (deferred deletion, the sweep's age).
    static func withClockedStore(
        _ body: @escaping @Sendable (PostgresBlobStore, TestClock, SystemDatabase) async throws -> Void
    ) async throws {
        try await withStore { store, system, _ in
            let clock = TestClock()
            var store = store
            store.chunkSize = 1000
            store.now = { clock.now }
            try await body(store, clock, system)
        }
    }

    /// A clock a test moves.
    final class TestClock: Sendable {
        private let time = NIOLockedValueBox(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLockedValue { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLockedValue { $0 += seconds } }
    }

    /// Counts the chunk rows a store's reads fetch.
    final class FetchCounter: Sendable {
        private let count = NIOLockedValueBox(0)
        var value: Int { count.withLockedValue { $0 } }
        func add(_ n: Int) { count.withLockedValue { $0 += n } }
        func reset() { count.withLockedValue { $0 = 0 } }
    }

    static func chunkRows(_ system: SystemDatabase, of object: String? = nil) async throws -> Int {
        var sql: SQL = "SELECT count(*) FROM \(system.table("blob_chunks"))"
        if let object { sql += " WHERE \"object\" = \(bind: .string(object))" }
        let statement = SQLStatement(sql, dialect: system.dialect)
        return Int(try await system.database.read { try await $0.query(statement, types: [.int64]) }.rows.first?[0].integerValue ?? -1)
    }

    static func readAll(_ reader: any BlobObjectReader, piece: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var offset: Int64 = 0
        while offset < reader.size {
            let buffer = try await reader.read(at: offset, length: Int(min(Int64(piece), reader.size - offset)))
            bytes += buffer.readableBytesView
            offset += Int64(buffer.readableBytes)
        }
        return bytes
    }

    static func content(_ bytes: [UInt8]) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            continuation.yield(ByteBuffer(bytes: bytes))
            continuation.finish()
        }
    }

    @Test("64 MiB streamed in and read back whole and by ranges: 256 chunk rows, each fetched once, memory flat")
    func largeBlob() async throws {
        try await Self.withStore { store, system, _ in
            let size = 64 << 20
            let fetched = FetchCounter()
            var store = store
            store.onChunksFetched = { fetched.add($0) }
            let content = BlobPatternContent(size: size)
            let before = RawHTTP.residentMemory()
            let peak = NIOLockedValueBox(before)
            let stored = try await store.write(content, limit: Int64(size))
            peak.withLockedValue { $0 = max($0, RawHTTP.residentMemory()) }
            #expect(stored.size == Int64(size))
            #expect(stored.sha256 == content.digest.withLockedValue { $0 })
            #expect(try await Self.chunkRows(system, of: stored.id) == size / PostgresBlobStore.defaultChunkSize)

            let reader = try #require(try await store.open(stored.id))
            #expect(reader.size == Int64(size))
            var hasher = SHA256Check()
            var offset: Int64 = 0
            while offset < reader.size {
                let piece = try await reader.read(at: offset, length: BlobDownload.chunkSize)
                hasher.update(piece)
                offset += Int64(piece.readableBytes)
                if offset % (8 << 20) == 0 { peak.withLockedValue { $0 = max($0, RawHTTP.residentMemory()) } }
            }
            #expect(hasher.hex == stored.sha256)
            #expect(fetched.value == size / PostgresBlobStore.defaultChunkSize, "a whole read fetches each chunk once")

            let chunk = PostgresBlobStore.defaultChunkSize
            for range in [0..<100, (chunk - 10)..<(chunk + 10), 12_345_678..<15_345_679, (size - 777_777)..<size] {
                fetched.reset()
                let part = try #require(try await store.open(stored.id))
                let bytes = try await part.read(at: Int64(range.lowerBound), length: range.count)
                #expect(Array(bytes.readableBytesView) == BlobPatternContent.bytes(range), "\(range)")
                #expect(fetched.value == (range.upperBound - 1) / chunk - range.lowerBound / chunk + 1, "\(range)")
            }
            let growth = peak.withLockedValue { $0 } - before
            print("PostgreSQL blob store in process: 64 MiB written and read grew RSS by \(growth / 1024) KiB")
            // This process runs other suites at the same time; a store that held the blob would grow
            // by its 64 MiB and more, so three quarters of it still tells them apart.
            #expect(growth < size * 3 / 4, "memory grew by \(growth / 1_000_000) MB for a \(size / 1_000_000) MB blob")
        }
    }

    @Test("A range read selects only the chunks it covers; a sequential read fetches each chunk once")
    func rangesTouchTheirChunks() async throws {
        try await Self.withStore { store, system, _ in
            let fetched = FetchCounter()
            var store = store
            store.chunkSize = 1000
            store.onChunksFetched = { fetched.add($0) }
            let bytes = BlobTestData.binary(10_500)
            let stored = try await store.write(Self.content(bytes), limit: 1 << 20)
            #expect(try await Self.chunkRows(system, of: stored.id) == 11)

            let reader = try #require(try await store.open(stored.id))
            #expect(Array(try await reader.read(at: 2500, length: 1000).readableBytesView) == Array(bytes[2500..<3500]))
            #expect(fetched.value == 2, "bytes 2500..<3500 lie in chunks 2 and 3")
            fetched.reset()
            #expect(Array(try await reader.read(at: 10_400, length: 100).readableBytesView) == Array(bytes[10_400...]))
            #expect(fetched.value == 1)
            fetched.reset()
            #expect(try await Self.readAll(reader, piece: 300) == bytes)
            #expect(fetched.value == 11)
        }
    }

    @Test("An upload whose body fails midway, or that goes past the limit, leaves no object and no chunk rows")
    func failedUploads() async throws {
        try await Self.withStore { store, system, _ in
            var store = store
            store.chunkSize = 64 * 1024
            await #expect(throws: BlobPatternContent.Cut.self) {
                try await store.write(BlobPatternContent(size: 3 << 20, failingAfter: (1 << 20) + 5), limit: 1 << 30)
            }
            #expect(try await StoredBlobContent.of(system) == StoredBlobContent())
            #expect(try await Self.chunkRows(system) == 0)
            await #expect(throws: BlobStoreError.self) {
                try await store.write(BlobPatternContent(size: 2 << 20), limit: 1 << 20)
            }
            #expect(try await StoredBlobContent.of(system) == StoredBlobContent())
            #expect(try await Self.chunkRows(system) == 0)
            // And a cancelled upload (a request whose client went away) cleans up too.
            let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
            let uploader = store
            let upload = Task { try await uploader.write(stream, limit: 1 << 30) }
            continuation.yield(ByteBuffer(bytes: BlobTestData.binary(200_000)))
            for _ in 0..<500 where try await Self.chunkRows(system) < 3 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await Self.chunkRows(system) == 3, "the upload stored its first three chunks")
            upload.cancel()
            continuation.finish()
            _ = await upload.result
            #expect(try await StoredBlobContent.of(system).objects == 0)
            var left = try await StoredBlobContent.of(system)
            for _ in 0..<100 where !left.hasNoLeftovers {
                try await Task.sleep(for: .milliseconds(50))
                left = try await StoredBlobContent.of(system)
            }
            #expect(left.hasNoLeftovers, "\(left)")
        }
    }

    @Test("A storage failure is BlobStoreError.io naming the operation, never the statement; the object row goes too")
    func storageFailure() async throws {
        try await Self.withStore { store, system, _ in
            try await system.database.transaction { connection in
                try await connection.execute("ALTER TABLE \(system.table("blob_chunks")) RENAME TO \"blob_chunks_gone\"")
            }
            do {
                _ = try await store.write(Self.content(BlobTestData.binary(1000)), limit: 1 << 20)
                Issue.record("the write succeeded without its table")
            } catch BlobStoreError.io(let message) {
                #expect(message == "storing a chunk failed")
            }
            try await system.database.transaction { connection in
                try await connection.execute("ALTER TABLE \(system.table("blob_chunks_gone")) RENAME TO \"blob_chunks\"")
            }
            #expect(try await StoredBlobContent.of(system) == StoredBlobContent())
        }
    }

    @Test("A deleted object: gone for new readers, still read by one opened before, removed once its grace period is over")
    func deferredDeletion() async throws {
        try await Self.withClockedStore { store, clock, system in
            let bytes = BlobTestData.binary(2500)
            let stored = try await store.write(Self.content(bytes), limit: 1 << 20)
            let reader = try #require(try await store.open(stored.id))
            await store.delete([stored.id])
            #expect(try await store.open(stored.id) == nil)
            #expect(try await Self.readAll(reader, piece: 700) == bytes)
            #expect(try await StoredBlobContent.of(system).deleted == 1)

            clock.advance(1800)
            #expect(try await store.sweep(referenced: [], olderThan: .seconds(3600)) == 0)
            #expect(try await reader.read(at: 0, length: 10).readableBytes == 10, "still within the grace period")
            clock.advance(1801)
            #expect(try await store.sweep(referenced: [], olderThan: .seconds(3600)) == 1)
            #expect(try await Self.chunkRows(system) == 0)
            #expect(try await StoredBlobContent.of(system) == StoredBlobContent())
            // (Chunk 0 is the one the reader kept from its last read; chunk 1 must be fetched.)
            await #expect(throws: BlobStoreError.self) { try await reader.read(at: 1500, length: 10) }
        }
    }

    @Test("The sweep removes a crashed upload's rows and objects no blob names, once older than its age; a later delete purges too")
    func sweep() async throws {
        try await Self.withClockedStore { store, clock, system in
            let kept = try await store.write(Self.content(BlobTestData.binary(1500)), limit: 1 << 20)
            let orphan = try await store.write(Self.content(BlobTestData.binary(1500)), limit: 1 << 20)
            // What a server killed mid-upload leaves: an object still `writing`, and its first chunk.
            let crashed = BlobObjectID.make()
            let time = Int64(clock.now.timeIntervalSince1970 * 1000)
            try await system.database.transaction { connection in
                try await connection.execute("""
                    INSERT INTO \(system.table("blob_objects")) ("id", "state", "size", "chunk_size", "updated_at") \
                    VALUES (\(bind: .string(crashed)), 'writing', 0, 1000, \(bind: .int64(time)))
                    """)
                try await connection.execute("""
                    INSERT INTO \(system.table("blob_chunks")) ("object", "index", "data") \
                    VALUES (\(bind: .string(crashed)), 0, \(bind: .binary(Data(BlobTestData.binary(1000)))))
                    """)
            }
            #expect(try await store.sweep(referenced: [kept.id], olderThan: .seconds(3600)) == 0)
            clock.advance(7200)
            #expect(try await store.sweep(referenced: [kept.id], olderThan: .seconds(3600)) == 2)
            #expect(try await store.open(kept.id) != nil)
            #expect(try await store.open(orphan.id) == nil)
            #expect(try await Self.chunkRows(system) == 2, "only the kept object's two chunks remain")

            await store.delete([kept.id])
            #expect(try await Self.chunkRows(system) == 2, "kept for its grace period")
            clock.advance(3601)
            await store.delete([])
            #expect(try await Self.chunkRows(system) == 0, "a later delete removes what is past its grace period")
        }
    }

    @Test("Two servers on one database: what one writes the other reads, and a delete through one is seen by the other")
    func twoServers() async throws {
        try await Self.withStore { first, _, location in
            try await withSystemDatabase(location) { system in
                let second = PostgresBlobStore(system: system, logger: TestDatabases.logger)
                let bytes = BlobTestData.binary(700_000)
                let stored = try await first.write(Self.content(bytes), limit: 1 << 20)
                let reader = try #require(try await second.open(stored.id))
                #expect(try await Self.readAll(reader, piece: 128 * 1024) == bytes)
                await second.delete([stored.id])
                #expect(try await first.open(stored.id) == nil)
            }
        }
    }

    @Test("Two servers with their own data directories on one PostgreSQL: a blob put through one is read whole and by range through the other, and deleted there")
    func twoServersOverHTTP() async throws {
        try await withEmptyPostgresDatabase { configuration, _, _ in
            // One key secret: the two share the signing keys, and the second needs no file of the first's.
            var configuration = configuration
            configuration.auth.keySecret = try KeySecret(SigningKeyTests.secret, source: "test")
            var other = configuration
            other.dataDirectory = configuration.dataDirectory + "-b"
            try FileManager.default.createDirectory(atPath: other.dataDirectory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: other.dataDirectory) }
            let first = try await buildApplication(configuration, logger: TestDatabases.logger)
            let second = try await buildApplication(other, logger: TestDatabases.logger)
            let content = BlobTestData.binary(700_000)
            try await first.test(.router) { a in
                let a = AdministratorTestClient(base: a)
                try await a.createContainer("shared")
                #expect(try await a.putBlob("/blobs/shared/photo.bin", content).status == .created)
                try await second.test(.router) { b in
                    let b = AdministratorTestClient(base: b)
                    let whole = try await b.get("/blobs/shared/photo.bin")
                    #expect(whole.status == .ok)
                    #expect(whole.bytes == content)
                    let part = try await b.execute(uri: "/blobs/shared/photo.bin", method: .get, headers: [.range: "bytes=262100-262199"], body: nil)
                    #expect(part.status == .partialContent)
                    #expect(part.bytes == Array(content[262_100..<262_200]))
                    #expect(try await b.send(.delete, "/blobs/shared/photo.bin").status == .noContent)
                }
                #expect(try await a.get("/blobs/shared/photo.bin").status == .notFound)
            }
            #expect(BlobTestData.objectFiles(in: configuration.dataDirectory).isEmpty, "nothing of the blob on the first server's disk")
        }
    }

    @Test("Upgrade: the files of an earlier server's blobs are copied into PostgreSQL under their ids, once, and removed")
    func fileImport() async throws {
        try await Self.withStore { store, system, _ in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("strata-import-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: root) }
            let files = FileBlobStore(root: root, logger: TestDatabases.logger)
            try await files.prepare()
            let large = BlobTestData.binary(700_000), small = Array("small".utf8)
            let a = try await files.write(Self.content(large), limit: 1 << 20)
            let b = try await files.write(Self.content(small), limit: 1 << 20)
            let recorded = [a.id: a.sha256, b.id: b.sha256, BlobObjectID.make(): "a blob whose file is gone"]
            let upgrade = BlobFileImport(files: files, store: store, logger: TestDatabases.logger)

            #expect(await upgrade.run(recorded: recorded) == BlobFileImport.Report(copied: 2, failed: 0))
            #expect(try await Self.readAll(try #require(try await store.open(a.id)), piece: 100_000) == large)
            #expect(try await Self.readAll(try #require(try await store.open(b.id)), piece: 100_000) == small)
            #expect(!FileManager.default.fileExists(atPath: files.path(of: a.id)))
            #expect(!FileManager.default.fileExists(atPath: files.path(of: b.id)))
            #expect(await upgrade.run(recorded: recorded) == BlobFileImport.Report(), "nothing is copied twice")
            #expect(!FileManager.default.fileExists(atPath: root.path), "the emptied folders are removed")
            #expect(!upgrade.hasFiles)
            #expect(try await StoredBlobContent.of(system).objects == 2)
        }
    }

    @Test("A server on PostgreSQL that finds its blobs in files under <data>/blobs serves them from PostgreSQL from its start")
    func upgradedServer() async throws {
        try await withEmptyPostgresDatabase { configuration, location, _ in
            let content = BlobTestData.binary(600_000)
            let files = FileBlobStore(root: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("blobs"), logger: TestDatabases.logger)
            try await files.prepare()
            let object = try await files.write(Self.content(content), limit: 1 << 20)
            // The catalog as a server that kept content in files left it.
            try await withSystemDatabase(location) { system in
                try await system.migrate(logger: TestDatabases.logger)
                let catalog = BlobCatalog(system: system)
                #expect(try await catalog.createContainer("files", access: .publicRead, now: 0))
                let record = BlobRecord(container: "files", name: "old.bin", object: object.id, size: object.size, sha256: object.sha256,
                                        contentType: "application/octet-stream", modifiedAt: 0)
                #expect(try await catalog.swap(record, replacing: nil))
            }
            let app = try await buildApplication(configuration, logger: TestDatabases.logger)
            try await app.test(.router) { client in
                let client = AdministratorTestClient(base: client)
                let get = try await client.get("/blobs/files/old.bin")
                #expect(get.status == .ok)
                #expect(get.bytes == content)
                #expect(get.headers[.eTag] == "\"\(object.sha256)\"")
            }
            #expect(BlobTestData.objectFiles(in: configuration.dataDirectory).isEmpty, "the copied file was removed")
        }
    }
}

/// SHA-256 of pieces read one after another.
struct SHA256Check {
    private var hasher = Crypto.SHA256()
    mutating func update(_ buffer: ByteBuffer) { buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) } }
    var hex: String { Hex.lowercase(hasher.finalize()) }
}
