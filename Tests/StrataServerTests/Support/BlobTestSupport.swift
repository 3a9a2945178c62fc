import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
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

extension TestClientProtocol {
    /// `PUT /blobs/{container}` (creating it; the test clients sign in as an administrator).
    @discardableResult
    func createContainer(_ name: String, access: String? = nil) async throws -> TestResponse {
        let response = try await execute(uri: "/blobs/\(name)" + (access.map { "?access=\($0)" } ?? ""), method: .put, headers: [:], body: nil)
        #expect(response.status == .created, "creating \(name): \(response.text)")
        return response
    }

    func putBlob(_ path: String, _ bytes: [UInt8], headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: path, method: .put, headers: headers, body: ByteBuffer(bytes: bytes))
    }
}

extension TestResponse {
    var bytes: [UInt8] { Array(body.readableBytesView) }
}

enum BlobTestData {
    /// Every byte value, then pseudo-random bytes from a fixed seed: binary content that no text
    /// handling could pass through unchanged.
    static func binary(_ count: Int, seed: UInt64 = 0x5EED) -> [UInt8] {
        var state = seed
        var bytes = (0...255).map(UInt8.init)
        while bytes.count < count {
            // xorshift64*
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            bytes.append(UInt8(truncatingIfNeeded: (state &* 0x2545F4914F6CDD1D) >> 56))
        }
        return Array(bytes.prefix(count))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        Hex.lowercase(SHA256.hash(data: bytes))
    }

    /// The files of stored objects under a data directory.
    static func objectFiles(in dataDirectory: String) -> [URL] {
        let root = URL(fileURLWithPath: dataDirectory).appendingPathComponent("blobs/objects")
        let folders = (try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? []
        return folders.flatMap { (try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)) ?? [] }
    }

    static func temporaryFiles(in dataDirectory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory + "/blobs/tmp")) ?? []
    }
}

/// What a test server's blob store holds, whichever store it is: object files and temporary files
/// under `<data>/blobs` on SQLite, object and chunk rows in the system schema on PostgreSQL.
struct StoredBlobContent: Sendable, Equatable, CustomStringConvertible {
    /// Whole objects a blob may name.
    var objects = 0
    /// Uploads in progress or left behind: temporary files, `writing` object rows.
    var partial = 0
    /// Objects deleted but kept for downloads that opened them (PostgreSQL's grace period).
    var deleted = 0
    /// Chunk rows of objects that are not whole (always 0 on SQLite).
    var partialChunks = 0

    var description: String { "\(objects) objects, \(partial) partial (\(partialChunks) chunks), \(deleted) deleted" }

    /// Nothing is left of uploads that did not finish.
    var hasNoLeftovers: Bool { partial == 0 && partialChunks == 0 }

    static func of(_ configuration: StrataConfiguration) async throws -> StoredBlobContent {
        guard case .postgres(let location) = configuration.database else {
            return StoredBlobContent(objects: BlobTestData.objectFiles(in: configuration.dataDirectory).count,
                                     partial: BlobTestData.temporaryFiles(in: configuration.dataDirectory).count)
        }
        return try await withSystemDatabase(location) { try await of($0) }
    }

    static func of(_ system: SystemDatabase) async throws -> StoredBlobContent {
        let objects = system.table("blob_objects"), chunks = system.table("blob_chunks")
        let statement = SQLStatement(
            """
            SELECT (SELECT count(*) FROM \(objects) WHERE "state" = 'complete'), (SELECT count(*) FROM \(objects) WHERE "state" = 'writing'),
            (SELECT count(*) FROM \(objects) WHERE "state" = 'deleted'),
            (SELECT count(*) FROM \(chunks) c WHERE NOT EXISTS (SELECT 1 FROM \(objects) o WHERE o."id" = c."object" AND o."state" <> 'writing'))
            """, dialect: system.dialect)
        let row = try #require(try await system.database.read { try await $0.query(statement, types: [.int64, .int64, .int64, .int64]) }.rows.first)
        return StoredBlobContent(objects: Int(row[0].integerValue ?? -1), partial: Int(row[1].integerValue ?? -1),
                                 deleted: Int(row[2].integerValue ?? -1), partialChunks: Int(row[3].integerValue ?? -1))
    }

    /// Polls until nothing is left of unfinished uploads (a server cleans up after a client that
    /// went away asynchronously: seconds on a loaded 2-core machine); answers what is stored then.
    static func settled(_ configuration: StrataConfiguration) async throws -> StoredBlobContent {
        guard case .postgres(let location) = configuration.database else {
            return try await settled { try await of(configuration) }
        }
        return try await withSystemDatabase(location) { system in try await settled { try await of(system) } }
    }

    private static func settled(_ read: () async throws -> StoredBlobContent) async throws -> StoredBlobContent {
        var content = try await read()
        for _ in 0..<300 where !content.hasNoLeftovers {
            try await Task.sleep(for: .milliseconds(100))
            content = try await read()
        }
        return content
    }
}

/// Runs `body` with the system database of a PostgreSQL test database, over a pool of its own
/// (as another server would reach it).
func withSystemDatabase<T: Sendable>(_ location: PostgresLocation, _ body: @Sendable (SystemDatabase) async throws -> T) async throws -> T {
    try await TestDatabases.withAdminClient(PostgresTestCluster.Endpoint(location), database: location.database ?? "postgres") { client in
        let store = PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger, connectionWait: .seconds(60))
        return try await body(SystemDatabase(database: store.system, schema: store.systemSchema))
    }
}

/// Damage done to the stored content of a test server's only blob, wherever it is stored.
enum BlobDamage {
    /// Inverts the byte at `offset`.
    static func flipByte(at offset: Int, _ configuration: StrataConfiguration) async throws {
        guard case .postgres(let location) = configuration.database else {
            let file = try #require(BlobTestData.objectFiles(in: configuration.dataDirectory).first)
            let handle = try FileHandle(forUpdating: file)
            try handle.seek(toOffset: UInt64(offset))
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: [byte ^ 0xFF])
            try handle.close()
            return
        }
        let chunkSize = PostgresBlobStore.defaultChunkSize
        try await withSystemDatabase(location) { system in
            let within = ODataValue.int32(Int32(offset % chunkSize))
            let statement = SQLStatement(
                """
                UPDATE \(system.table("blob_chunks")) SET "data" = set_byte("data", \(bind: within), get_byte("data", \(bind: within)) # 255) \
                WHERE "index" = \(bind: .int32(Int32(offset / chunkSize))) RETURNING "object"
                """, dialect: system.dialect)
            let changed = try await system.database.transaction { try await $0.query(statement) }.rows.count
            #expect(changed == 1)
        }
    }

    /// Makes the stored content `size` bytes long as the store sees it (a shorter file, a smaller recorded size).
    static func truncate(to size: Int, _ configuration: StrataConfiguration) async throws {
        guard case .postgres(let location) = configuration.database else {
            let file = try #require(BlobTestData.objectFiles(in: configuration.dataDirectory).first)
            let handle = try FileHandle(forUpdating: file)
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
            return
        }
        try await withSystemDatabase(location) { system in
            let statement = SQLStatement("UPDATE \(system.table("blob_objects")) SET \"size\" = \(bind: .int64(Int64(size))) RETURNING \"id\"",
                                         dialect: system.dialect)
            let changed = try await system.database.transaction { try await $0.query(statement) }.rows.count
            #expect(changed == 1)
        }
    }
}
