extension StrataError {
    /// The kinds of failure, so that callers can react to each (sign in again on ``unauthorized``,
    /// reload and merge on ``preconditionFailed``, back off on ``tooManyRequests``).
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The request could not be built: a malformed URL, a body that cannot be encoded, a query
        /// option that does not parse.
        case invalidRequest
        /// The server could not be reached or the connection broke (refused, reset, DNS, TLS).
        case transport
        /// No answer within the timeout.
        case timedOut
        /// The task that sent the request was cancelled.
        case cancelled
        /// The server answered 2xx with something that is not what the request asks for (not JSON,
        /// no `d` wrapper, a collection where one entity was expected).
        case invalidResponse
        /// The response is well-formed OData, but it does not fit the `Decodable` type asked for.
        case decoding
        /// 400: the server refused the request as malformed; the message names the problem.
        case badRequest
        /// 401: credentials are missing, expired or invalid.
        case unauthorized
        /// 403: signed in, but not allowed; also a refused sign-in.
        case forbidden
        /// 404: the entity, set or service does not exist.
        case notFound
        /// 409: a duplicate key, a unique or foreign-key violation.
        case conflict
        /// 412: the entity changed since its ETag was read; see ``StrataError/currentEntity``.
        case preconditionFailed
        /// 428: the service requires `If-Match` on updates and the request had none.
        case preconditionRequired
        /// 410 (code `DeltaTokenGone`), or a change stream's `gone` event: the delta token or
        /// subscription can no longer continue (expired, pruned, rights or model changed). Read the
        /// data again from scratch (a full fetch with tracking), keeping unsent local changes.
        case deltaTokenGone
        /// 429: too many attempts; the response's `Retry-After` says when to try again.
        case tooManyRequests
        /// 5xx: the server failed.
        case server
        /// Any other unsuccessful status.
        case http
        /// The request needs a signed-in ``AuthSession`` and there is none.
        case notSignedIn

        /// The kind an HTTP error status stands for.
        public init(status: Int) {
            switch status {
            case 400: self = .badRequest
            case 401: self = .unauthorized
            case 403: self = .forbidden
            case 404: self = .notFound
            case 409: self = .conflict
            case 410: self = .deltaTokenGone
            case 412: self = .preconditionFailed
            case 428: self = .preconditionRequired
            case 429: self = .tooManyRequests
            case 500...599: self = .server
            default: self = .http
            }
        }

        public var description: String {
            switch self {
            case .invalidRequest: return "invalid request"
            case .transport: return "network error"
            case .timedOut: return "timed out"
            case .cancelled: return "cancelled"
            case .invalidResponse: return "invalid response"
            case .decoding: return "decoding failed"
            case .badRequest: return "bad request"
            case .unauthorized: return "unauthorized"
            case .forbidden: return "forbidden"
            case .notFound: return "not found"
            case .conflict: return "conflict"
            case .preconditionFailed: return "precondition failed"
            case .preconditionRequired: return "precondition required"
            case .deltaTokenGone: return "delta token gone"
            case .tooManyRequests: return "too many requests"
            case .server: return "server error"
            case .http: return "HTTP error"
            case .notSignedIn: return "not signed in"
            }
        }
    }
}
