import Foundation
import NIOCore
import StrataCore
import StrataSQL
import Synchronization
import StrataStorage

/// An object of the ``PostgresBlobStore`` opened for reading.
///
/// Each read selects only the chunks its bytes lie in. The last chunk fetched is kept: a download
/// reads a few pieces of each chunk in turn (its pieces are smaller than a chunk, and a range need
/// not start at a chunk's start), and each chunk is fetched once. So memory holds about a chunk and
/// a piece per download.
///
/// Chunks are read by object id whatever the object's state: a download keeps reading an object
/// deleted after it was opened, until the store's deletion grace period is over.
///
/// On a server with standbys, chunks are read while the body streams on a standby that has replayed
/// the position the object was opened at (``opened``), as a request's reads are routed: the object
/// was complete there, so every chunk of it is too. An object's chunks are written once and never
/// change, so chunks read on different standbys, or on the primary, are the same bytes. A read that
/// finds a chunk missing or short is read again on the primary before the content counts as damaged:
/// a download never takes a standby's gap for the object's end.
final class PostgresObjectReader: BlobObjectReader {
    let store: PostgresBlobStore
    let object: String
    let size: Int64
    let chunkSize: Int
    /// The primary's position when the object was opened; nil without standbys (reads go to the primary).
    let opened: ReadPosition?
    private let kept = Mutex<Chunk?>(nil)

    struct Chunk: Sendable {
        var index: Int
        var data: Data
    }

    init(store: PostgresBlobStore, object: String, size: Int64, chunkSize: Int, opened: ReadPosition? = nil) {
        self.store = store
        self.object = object
        self.size = size
        self.chunkSize = chunkSize
        self.opened = opened
    }

    func read(at offset: Int64, length: Int) async throws -> ByteBuffer {
        let end = min(offset + Int64(length), size)
        guard offset < end else {
            if length > 0 { throw BlobStoreError.truncated(object: object) }
            return ByteBuffer()
        }
        let first = Int(offset / Int64(chunkSize)), last = Int((end - 1) / Int64(chunkSize))
        var pieces: [Chunk] = []
        if let held = kept.withLock({ $0 }), held.index == first { pieces.append(held) }
        let from = first + pieces.count
        if from <= last { pieces += try await fetch(from...last) }
        if let final = pieces.last { kept.withLock { $0 = final } }

        var buffer = ByteBufferAllocator().buffer(capacity: Int(end - offset))
        for piece in pieces {
            let start = Int64(piece.index) * Int64(chunkSize)
            let lower = Int(max(offset, start) - start), upper = Int(min(end, start + Int64(piece.data.count)) - start)
            guard lower < upper else { throw BlobStoreError.truncated(object: object) }
            piece.data.withUnsafeBytes { _ = buffer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[lower..<upper])) }
        }
        guard buffer.readableBytes == Int(end - offset) else { throw BlobStoreError.truncated(object: object) }
        return buffer
    }

    /// The chunks `indexes`, in order; a missing or short one means the content is damaged (or
    /// was removed after its grace period while this reader still held it).
    private func fetch(_ indexes: ClosedRange<Int>) async throws -> [Chunk] {
        let store = self.store
        let statement = SQLStatement(
            """
            SELECT "index", "data" FROM \(store.chunks) WHERE "object" = \(bind: .string(object)) \
            AND "index" BETWEEN \(bind: .int32(Int32(indexes.lowerBound))) AND \(bind: .int32(Int32(indexes.upperBound))) ORDER BY "index"
            """, dialect: store.dialect)
        if let opened {
            let onStandby = try await store.storing("reading chunks") {
                try await store.contentReads.read(after: opened, onStandbys: true) { try await $0.query(statement, types: [.int32, .binary]) }
            }.0.rows
            store.onChunksFetched(onStandby.count)
            if let chunks = chunks(onStandby, indexes) { return chunks }
        }
        let rows = try await store.storing("reading chunks") {
            try await store.contentReads.read(after: nil, onStandbys: false) { try await $0.query(statement, types: [.int32, .binary]) }
        }.0.rows
        store.onChunksFetched(rows.count)
        guard let chunks = chunks(rows, indexes) else { throw BlobStoreError.truncated(object: object) }
        return chunks
    }

    /// The rows as the chunks `indexes`, each of its full size (the last one's rest); nil when one
    /// is missing or short.
    private func chunks(_ rows: [[ODataValue]], _ indexes: ClosedRange<Int>) -> [Chunk]? {
        var chunks: [Chunk] = []
        chunks.reserveCapacity(rows.count)
        for (expected, row) in zip(indexes, rows) {
            guard row[0].integerValue == Int64(expected), case .binary(let data) = row[1] else { break }
            let whole = Int64(expected + 1) * Int64(chunkSize) <= size
            guard data.count == (whole ? chunkSize : Int(size - Int64(expected) * Int64(chunkSize))) else { break }
            chunks.append(Chunk(index: expected, data: data))
        }
        return chunks.count == indexes.count ? chunks : nil
    }
}
