import Hummingbird

/// A request's body, read when a stage needs it rather than when the request arrives. A write's
/// body is read after the write is authorized on the table it addresses, so a caller without the
/// right is refused before anything it sent is held in memory.
package struct PendingBody: Sendable {
    private let read: @Sendable () async throws -> [UInt8]

    /// A body that is already in memory: a `$batch` part's, or none.
    package static func bytes(_ bytes: [UInt8]) -> PendingBody {
        PendingBody { bytes }
    }

    /// The body of `request`, up to `limit` bytes (413 past it), read on ``collect()``. Only one
    /// stage may collect it: the request's body is a stream.
    package static func request(_ request: Request, limit: Int) -> PendingBody {
        PendingBody { try await BodyReader.collect(request, limit: limit) }
    }

    package func collect() async throws -> [UInt8] {
        try await read()
    }
}
