import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import StrataCore

extension ODataError {
    /// The OData error a failure is answered with, wherever it is answered: a response
    /// (``ErrorMiddleware``), a `$batch` part, a `$changes` result.
    ///
    /// `ODataError`s carry their own status. Storage errors map to 409/400/503. Hummingbird's own
    /// errors (a body over the size limit, say) keep their status. Anything else is a bug: it is
    /// logged and answered with a generic 500 that reveals nothing.
    static func from(_ error: any Error, logger: Logger) -> ODataError {
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
