import Foundation
import StrataCore

/// A complete HTTP response: status, headers and the whole body.
///
/// Named `StrataResponse` rather than `Response`, like ``StrataRequest``, so that it does not
/// collide with the `Response` of an app's other libraries.
public struct StrataResponse: Sendable, Hashable {
    /// The HTTP status code, for example 200.
    public var status: Int
    /// The response headers.
    public var headers: StrataHeaders
    /// The body, empty when there was none.
    public var body: Data
    /// The URL that answered (after any redirects).
    public var url: URL
    /// The request this answers, as sent; nil for responses made by hand.
    public var request: SentRequest?

    /// A response; the connection makes these, tests and `$batch` parts make them by hand.
    public init(status: Int, headers: StrataHeaders, body: Data, url: URL, request: SentRequest? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.request = request
    }

    /// True for 2xx statuses.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body decoded as UTF-8 (invalid bytes replaced), for logs and plain-text answers like `$count`.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON.
    public func json() throws(StrataError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw StrataError(.invalidResponse, status: status, method: request?.method, url: url,
                              message: "The response is not JSON (\(error)): \(text.prefix(200))", underlying: error)
        }
    }

    /// Throws the server's error when the status is not a success; returns the response otherwise.
    ///
    /// The error carries the OData error code and message when the body is an OData error document.
    @discardableResult
    public func requireSuccess() throws(StrataError) -> StrataResponse {
        guard !isSuccess else { return self }
        throw StrataError(response: self)
    }
}

/// The status line and headers of a response, as they arrive before the body.
public struct ResponseHead: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// The response headers.
    public var headers: StrataHeaders
    /// The length the server announced (`Content-Length`), nil when it streams without one.
    public var expectedLength: Int64?
    /// The URL that answered.
    public var url: URL
}
