/// What happens to a request, in order: ``willSend(_:)``, then ``didReceiveResponse(_:_:)``, any number
/// of ``progress(_:_:)``, and finally exactly one of ``didFinish(_:_:)`` or ``didFail(_:_:)``.
///
/// A request that fails before the server answers goes straight from `willSend` to `didFail`.
/// A request retried after a token refresh is a new request with a new identifier.
public enum ConnectionEvent: Sendable {
    case willSend(SentRequest)
    case didReceiveResponse(SentRequest, ResponseHead)
    case progress(SentRequest, TransferProgress)
    case didFinish(SentRequest, StrataResponse)
    case didFail(SentRequest, StrataError)

    /// The request the event belongs to.
    public var request: SentRequest {
        switch self {
        case .willSend(let r), .didReceiveResponse(let r, _), .progress(let r, _), .didFinish(let r, _), .didFail(let r, _):
            return r
        }
    }
}

/// How far a request body has been sent, or a response body received.
public struct TransferProgress: Sendable, Hashable {
    /// Which body is moving.
    public enum Direction: Sendable, Hashable {
        /// The request body going to the server.
        case upload
        /// The response body coming back.
        case download
    }

    /// Upload or download.
    public var direction: Direction
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The total, when known (request bodies always; responses when they have a `Content-Length`).
    public var expectedBytes: Int64?

    /// 0 to 1, nil when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }
}
