import NIOCore

/// The content of an open object as the sequence of buffers a store's `write` takes: copying an
/// object from one store to another streams it, a piece at a time.
struct BlobObjectContent: AsyncSequence {
    package typealias Element = ByteBuffer

    let reader: any BlobObjectReader
    var pieceSize = 256 * 1024

    struct AsyncIterator: AsyncIteratorProtocol {
        let reader: any BlobObjectReader
        let pieceSize: Int
        var offset: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard offset < reader.size else { return nil }
            let piece = try await reader.read(at: offset, length: Int(Swift.min(Int64(pieceSize), reader.size - offset)))
            offset += Int64(piece.readableBytes)
            return piece
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: reader, pieceSize: pieceSize)
    }
}
