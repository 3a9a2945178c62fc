import Crypto
import NIOCore
import NIOConcurrencyHelpers
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed

/// Content of any size made as it is read, so that a test can stream a large blob into a store
/// without holding it: byte `i` is byte `i % 8` of the little-endian word `(i / 8) × 0x9E3779B97F4A7C15`,
/// which repeats nowhere a chunk boundary could hide a misplaced chunk.
struct BlobPatternContent: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    struct Cut: Error {}

    let size: Int
    /// Not a divisor of any chunk size, so pieces straddle chunk boundaries.
    var pieceSize = 64 * 1024 + 8
    /// Throws ``Cut`` instead of the piece that would go past this many bytes (a client gone).
    var failingAfter: Int?
    /// The SHA-256 of everything produced, once the sequence has ended.
    let digest = NIOLockedValueBox<String?>(nil)

    static func word(_ index: Int) -> UInt64 { UInt64(index) &* 0x9E37_79B9_7F4A_7C15 }

    /// The bytes at `range`.
    static func bytes(_ range: Range<Int>) -> [UInt8] {
        range.map { UInt8(truncatingIfNeeded: word($0 / 8) >> (UInt64($0 % 8) * 8)) }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let content: BlobPatternContent
        var offset = 0
        var hasher = SHA256()

        mutating func next() async throws -> ByteBuffer? {
            guard offset < content.size else {
                if content.digest.withLockedValue({ $0 }) == nil {
                    let digest = Hex.lowercase(hasher.finalize())
                    content.digest.withLockedValue { $0 = digest }
                }
                return nil
            }
            let count = Swift.min(content.pieceSize, content.size - offset)
            if let limit = content.failingAfter, offset + count > limit { throw Cut() }
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            // Whole words while aligned (pieces are multiples of 8), the tail byte by byte.
            var index = offset
            while index + 8 <= offset + count {
                buffer.writeInteger(BlobPatternContent.word(index / 8), endianness: .little)
                index += 8
            }
            if index < offset + count { buffer.writeBytes(BlobPatternContent.bytes(index..<(offset + count))) }
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            offset += count
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(content: self)
    }
}
