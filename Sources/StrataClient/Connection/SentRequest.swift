import Foundation

/// A request as the connection sent it: absolute URL, every header including defaults, and an
/// identifier that ties together all events of one exchange.
///
/// The `Authorization` header's credentials are replaced with `<redacted>` here, because sent requests
/// reach observers, event streams and logs; the real token is only ever on the wire.
public struct SentRequest: Sendable, Hashable, Identifiable {
    /// Unique within one connection, increasing in the order requests were started.
    public var id: UInt64
    /// The method sent.
    public var method: StrataRequest.Method
    /// The absolute URL the path resolved to.
    public var url: URL
    /// Every header sent, defaults included, credentials redacted.
    public var headers: StrataHeaders
    /// The body sent, if any.
    public var body: Data?
    /// The file sent as the body, when the request sent one.
    public var bodyFile: URL?

    /// `GET http://host/cardealer/Person(1)`, for messages.
    public var summary: String { "\(method) \(url.absoluteString)" }
}

/// One finished request with its outcome, kept by ``Connection/lastExchange`` for debugging, as
/// the CarDealer sample's `RestConnection` kept the last request, response and data.
public struct Exchange: Sendable {
    /// The request as sent.
    public var request: SentRequest
    /// Nil when the request failed before a response arrived.
    public var response: StrataResponse?
    /// Set when the exchange failed (transport error, cancellation); an error status is still a response.
    public var error: StrataError?
    /// When the request was sent.
    public var startedAt: Date
    /// Seconds from sending to the last byte or the failure.
    public var duration: TimeInterval
}
