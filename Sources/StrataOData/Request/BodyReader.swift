import Hummingbird
import NIOCore
import StrataCore

/// Reads a request body into memory up to the configured limit (``StrataConfiguration/maxBodySize``).
package enum BodyReader {
    package static func collect(_ request: Request, limit: Int) async throws -> [UInt8] {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw tooLarge(limit)
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw tooLarge(limit)
        }
    }

    static func tooLarge(_ limit: Int) -> ODataError {
        .payloadTooLarge("The request body is larger than the \(limit) bytes this server accepts (maxBodySize); nothing was changed.")
    }
}
