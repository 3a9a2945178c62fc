import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import StrataCore
import StrataStorage

extension ODataError {
    /// The OData error a failure is answered with, wherever it is answered: a response
    /// (``ErrorMiddleware``), a `$batch` part, a `$changes` result.
    ///
    /// `ODataError`s carry their own status. Storage errors map to 409/400/503. Hummingbird's own
    /// errors (a body over the size limit, say) keep their status. Anything else is a bug: it is
    /// logged and answered with a generic 500 that reveals nothing.
    package static func from(_ error: any Error, logger: Logger) -> ODataError {
        switch error {
        case let error as ODataError:
            return error
        case let error as StorageError:
            switch error {
            case .failed, .unavailable:
                logger.error("Storage failure", metadata: ["error": .string(error.description)])
            case .permissionDenied:
                // The operator's to fix (a read-only role, a read-only file); the caller gets a 403.
                logger.warning("The database refused a statement", metadata: ["error": .string(error.description)])
            case .timedOut, .cancelled, .shuttingDown:
                // Limits doing their work, not failures.
                logger.info("Statement stopped", metadata: ["reason": .string(error.description)])
            default:
                break
            }
            return error.odataError
        case let error as HTTPError:
            let status = Int(error.status.code)
            let message = error.body ?? Self.defaultMessage(for: status)
            return ODataError(status: status, code: error.status.reasonPhrase.replacingOccurrences(of: " ", with: ""), message: message)
        case let error as NIOTooManyBytesError:
            // A body collected with a limit (`/auth/token`, `/admin`) that is larger.
            let limit = error.maxBytes.map { " (\($0) bytes)" } ?? ""
            return ODataError(status: 413, code: "PayloadTooLarge", message: "The request body is larger than this endpoint accepts\(limit).")
        case let error as HTTPParserError:
            // The request's body was malformed or ended early (the client shut its side down before
            // the bytes it announced): the client's fault, and nothing was applied, since a body is
            // read whole (or, for a blob, to its end) before anything is written.
            logger.info("Malformed request body", metadata: ["error": .string(String(describing: error))])
            return .malformedHTTP(error)
        case is CancellationError:
            return ODataError(status: 503, code: "ServiceUnavailable", message: "The request was cancelled.")
        default:
            logger.error("Unexpected error", metadata: ["error": .string(String(reflecting: error))])
            return .internalError()
        }
    }

    static func defaultMessage(for status: Int) -> String {
        switch status {
        case 404: return "Resource not found."
        case 405: return "The method is not allowed for this resource."
        case 413: return "The request body is larger than the server accepts."
        default: return HTTPResponse.Status(code: status).reasonPhrase
        }
    }
}

extension ODataError {
    /// The 400 for a request that is not valid HTTP/1.1, or whose body is malformed or ends early.
    package static func malformedHTTP(_ error: HTTPParserError) -> ODataError {
        let problem: String
        switch error {
        case .invalidEOFState, .closedConnection:
            problem = "The request body ended before it was complete: the connection was shut down before the bytes its Content-Length announced (or the last chunk) arrived"
        case .invalidChunkSize:
            problem = "The request body's chunked encoding is malformed: a chunk size is not a hexadecimal number the server accepts"
        case .invalidContentLength, .unexpectedContentLength:
            problem = "The request's Content-Length is not a valid length, or contradicts its Transfer-Encoding"
        case .headerOverflow:
            problem = "The request's headers are larger than the server accepts (80 KiB in all); send fewer or shorter headers"
        case .invalidMethod:
            problem = "The request's method is not one HTTP/1.1 defines; OData uses GET, HEAD, POST, PUT, PATCH, MERGE and DELETE"
        case .invalidVersion:
            problem = "The request line does not end with HTTP/1.0 or HTTP/1.1"
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            problem = "The request's target is not a valid URL; percent-encode spaces, control characters and other reserved bytes"
        case .invalidHeaderToken, .lfExpected, .invalidCharactersUsed, .invalidConstant:
            problem = "The request line or a header holds characters HTTP does not allow there (control characters, or a line not ended by CRLF)"
        default:
            problem = "The request is not valid HTTP/1.1 (\(error))"
        }
        return ODataError(status: 400, code: "MalformedRequest", message: problem + "; nothing was changed.")
    }
}
