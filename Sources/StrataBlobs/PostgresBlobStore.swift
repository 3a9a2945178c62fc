import Crypto
import Foundation
import Logging
import NIOCore
import StrataCore
import StrataSQL
import StrataOData
import StrataStorage

/// Blob content in the system database on PostgreSQL, which every server of a deployment reaches:
/// a blob uploaded through one server is read through any other.
///
/// ```
/// blob_objects (id, state, size, chunk_size, updated_at)   one row per stored object
/// blob_chunks  (object, index, data bytea)                 its content, chunk by chunk
/// ```
///
/// Content is cut into chunks of ``chunkSize`` bytes (the last one shorter), one row each, so
/// memory holds a chunk whatever the blob's size: an upload is written as it arrives, one chunk per
/// statement, hashed with SHA-256 on the way, and a range read selects only the chunks it covers
/// (`"index" BETWEEN first AND last`). Chunks are bound as binary parameters, never written into
/// SQL text; the column is stored out of line and uncompressed (see `BlobMigrations.swift`).
///
/// An object is `writing` while its upload streams in; it becomes `complete` (and ``open(_:)``
/// finds it) only when ``write(_:limit:)`` returns. A failed or abandoned upload deletes what it
/// wrote at once; a crash leaves a `writing` row that ``sweep(referenced:olderThan:)`` removes once
/// it is older than the sweep's age (a live upload renews its time every minute).
///
/// Deletion is deferred: ``delete(_:)`` marks objects `deleted` with the time, and their rows go
/// only once ``deletionGrace`` has passed, removed by a later ``delete(_:)`` or ``sweep(referenced:olderThan:)``
/// (of any server). A download that opened the object before (``PostgresObjectReader``) reads its
/// chunks by id and so finishes with the version it started with, as an open file does on disk.
struct PostgresBlobStore: BlobStore {
    let system: SystemDatabase
    let logger: Logger
    /// Where downloads read: the system database, or on a server with standbys a view of it whose
    /// reads may go to a standby that has replayed the object (``PostgresObjectReader``). Uploads,
    /// deletions and the sweep always use ``system``.
    var contentReads: any Database
    /// Bytes per chunk row. Recorded with each object, so objects written with another size stay
    /// readable if this changes.
    var chunkSize = Self.defaultChunkSize
    /// 256 KiB: a row PostgreSQL stores out of line in about 130 TOAST pieces, few enough
    /// statements for a large blob, and little memory per upload or download at a time.
    static let defaultChunkSize = 256 * 1024
    /// How long a deleted object stays readable to downloads that opened it before it was deleted.
    var deletionGrace: Duration = .seconds(3600)
    /// The clock of the objects' times (milliseconds since 1970, like the catalog's).
    var now: @Sendable () -> Date = { Date() }
    /// Told how many chunk rows each read fetched (tests prove that a range touches only its chunks).
    var onChunksFetched: @Sendable (Int) -> Void = { _ in }

    /// How often a long upload renews the time of its `writing` row, so the sweep never takes it for a crash's.
    static let signOfLife: Int64 = 60_000
    /// Objects named in one statement.
    static let batch = 500

    enum State: String {
        case writing, complete, deleted
    }

    /// - Parameter contentReads: see ``contentReads``; the system database when nil.
    init(system: SystemDatabase, logger: Logger, contentReads: (any Database)? = nil) {
        self.system = system
        self.logger = logger
        self.contentReads = contentReads ?? system.database
    }

    var database: any Database { system.database }
    var dialect: SQLDialect { system.dialect }
    var objects: TableName { system.table("blob_objects") }
    var chunks: TableName { system.table("blob_chunks") }
    var nowMilliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Nothing to do: the tables come with the system migrations (`blobs.2`).
    func prepare() async throws {}

    func write<Content: AsyncSequence>(_ content: Content, limit: Int64) async throws -> StoredObject
    where Content.Element == ByteBuffer {
        guard let stored = try await write(content, limit: limit, id: BlobObjectID.make()) else {
            throw BlobStoreError.io("a new object id was taken already")
        }
        return stored
    }

    /// ``write(_:limit:)`` under a given id (the upgrade from the file store keeps its ids); nil
    /// when an object of that id exists already, in any state, which is then left as it is.
    func write<Content: AsyncSequence>(_ content: Content, limit: Int64, id: String) async throws -> StoredObject?
    where Content.Element == ByteBuffer {
        var lastSign = nowMilliseconds
        let begin = SQLStatement(
            """
            INSERT INTO \(objects) ("id", "state", "size", "chunk_size", "updated_at") \
            VALUES (\(bind: .string(id)), \(bind: .string(State.writing.rawValue)), 0, \(bind: .int32(Int32(chunkSize))), \(bind: .int64(lastSign))) \
            ON CONFLICT ("id") DO NOTHING RETURNING "id"
            """, dialect: dialect).oneRow()
        let created = try await storing("starting an upload") { try await database.transaction { try await $0.query(begin) } }
        guard !created.rows.isEmpty else { return nil }
        do {
            var hasher = SHA256()
            var size: Int64 = 0
            var index: Int32 = 0
            var pending = Data(capacity: chunkSize)
            for try await piece in content {
                size += Int64(piece.readableBytes)
                guard size <= limit else { throw BlobStoreError.tooLarge(limit: limit) }
                var piece = piece
                // Gathered into whole chunks: chunk n holds bytes n × chunkSize ..< (n + 1) × chunkSize.
                while piece.readableBytes > 0 {
                    let taken = min(piece.readableBytes, chunkSize - pending.count)
                    piece.withUnsafeReadableBytes { bytes in
                        let part = UnsafeRawBufferPointer(rebasing: bytes.prefix(taken))
                        hasher.update(bufferPointer: part)
                        if let start = part.baseAddress { pending.append(start.assumingMemoryBound(to: UInt8.self), count: part.count) }
                    }
                    piece.moveReaderIndex(forwardBy: taken)
                    if pending.count == chunkSize {
                        try await store(pending, index: index, of: id, lastSign: &lastSign)
                        index += 1
                        pending = Data(capacity: chunkSize)
                    }
                }
            }
            // A body sequence may end early, without an error, when its task is cancelled (the
            // client went away): what arrived is then not the whole blob.
            try Task.checkCancellation()
            if !pending.isEmpty { try await store(pending, index: index, of: id, lastSign: &lastSign) }
            let finish = SQLStatement(
                """
                UPDATE \(objects) SET "state" = \(bind: .string(State.complete.rawValue)), "size" = \(bind: .int64(size)), \
                "updated_at" = \(bind: .int64(nowMilliseconds)) \
                WHERE "id" = \(bind: .string(id)) AND "state" = \(bind: .string(State.writing.rawValue)) RETURNING "id"
                """, dialect: dialect).oneRow()
            let finished = try await storing("completing an upload") { try await database.transaction { try await $0.query(finish) } }
            // Only a sweep that took the upload for a crash's removes its row meanwhile.
            guard !finished.rows.isEmpty else { throw BlobStoreError.io("object \(id) was removed while it was being written") }
            return StoredObject(id: id, size: size, sha256: Hex.lowercase(hasher.finalize()))
        } catch {
            await discard(id)
            throw error
        }
    }

    /// Stores one chunk; at most once a minute, also renews the time of the object's row.
    private func store(_ chunk: Data, index: Int32, of id: String, lastSign: inout Int64) async throws {
        let insert = SQLStatement(
            """
            INSERT INTO \(chunks) ("object", "index", "data") VALUES (\(bind: .string(id)), \(bind: .int32(index)), \(bind: .binary(chunk)))
            """, dialect: dialect).oneRow()
        let time = nowMilliseconds
        let renewal: SQLStatement?
        if time - lastSign >= Self.signOfLife {
            renewal = SQLStatement("UPDATE \(objects) SET \"updated_at\" = \(bind: .int64(time)) WHERE \"id\" = \(bind: .string(id))", dialect: dialect).oneRow()
            lastSign = time
        } else {
            renewal = nil
        }
        try await storing("storing a chunk") {
            try await database.transaction { connection in
                try await connection.execute(insert)
                if let renewal { try await connection.execute(renewal) }
            }
        }
    }

    /// Removes an object that will never be complete, with its chunks. Runs to its end even when
    /// the upload's task is cancelled (the client went away), and outside the request's statement
    /// limits, whose signal has just stopped the upload's statements.
    private func discard(_ id: String) async {
        let statement = SQLStatement("DELETE FROM \(objects) WHERE \"id\" = \(bind: .string(id))", dialect: dialect)
        do {
            try await Self.uncancelled { [database] in try await database.transaction { try await $0.execute(statement) } }
        } catch {
            logger.warning("The chunks of an unfinished blob upload could not be removed; the sweep at the next start removes them",
                           metadata: ["object": .string(id), "error": .string("\(error)")])
        }
    }

    func open(_ object: String) async throws -> (any BlobObjectReader)? {
        guard BlobObjectID.isValid(object) else { return nil }
        let statement = SQLStatement(
            """
            SELECT "size", "chunk_size" FROM \(objects) WHERE "id" = \(bind: .string(object)) AND "state" = \(bind: .string(State.complete.rawValue))
            """, dialect: dialect).oneRow()
        // On the primary, which has every object the catalog (read there) names; the position it
        // answers is past the object's completion, so past every chunk of it.
        let (rows, position) = try await storing("opening an object") {
            try await contentReads.read(after: nil, onStandbys: false) { try await $0.query(statement, types: [.int64, .int32]) }
        }
        guard let row = rows.rows.first, let size = row[0].integerValue, let chunkSize = row[1].integerValue, chunkSize > 0 else { return nil }
        // The response's position covers what its body reads: this object, whose chunks never change.
        if let position { ReadPositionScope.current?.record(position) }
        return PostgresObjectReader(store: self, object: object, size: size, chunkSize: Int(chunkSize), opened: position)
    }
}
