import Foundation

/// One HTTP request, addressed relative to a ``Connection``'s base URL.
///
/// Named `StrataRequest` rather than `Request` so that it does not collide with the `Request` of
/// an app's web framework or its own types; apps see it with `import StrataClient` alone.
///
/// ```swift
/// let response = try await connection.send(StrataRequest(.get, "Person(1)"))
/// ```
public struct StrataRequest: Sendable, Hashable {
    /// The method, `GET` unless given.
    public var method: StrataRequest.Method
    /// A path relative to the connection's base URL (`Person(1)?$expand=PersonCar`), an absolute path
    /// from the host's root (`/auth/token`), or an absolute URL (`http://host/cardealer/Person`, as a
    /// `__next` link gives it). Already percent-encoded, as StrataCore's path and query types write it.
    public var path: String
    /// Headers for this request; they replace the connection's default headers of the same name.
    public var headers: StrataHeaders
    /// The body to send, if any.
    public var body: Data?
    /// A file to send as the body instead of ``body``, read from disk as it is sent, so that a
    /// large upload never sits in memory.
    public var bodyFile: URL?
    /// Seconds to wait for the server before failing with ``StrataError/Kind/timedOut``; nil uses
    /// the connection's timeout.
    public var timeout: TimeInterval?
    /// Whether the connection's ``RequestAuthenticator`` signs this request; token requests turn it off.
    public var isAuthenticated: Bool

    /// A request for `path`; see the properties for what each part means.
    public init(
        _ method: StrataRequest.Method = .get,
        _ path: String,
        headers: StrataHeaders = [:],
        body: Data? = nil,
        bodyFile: URL? = nil,
        timeout: TimeInterval? = nil,
        isAuthenticated: Bool = true
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.timeout = timeout
        self.isAuthenticated = isAuthenticated
    }

    /// A request whose body is a JSON document, with the matching `Content-Type`.
    public static func json(_ method: StrataRequest.Method, _ path: String, body: [UInt8], headers: StrataHeaders = [:]) -> StrataRequest {
        var all = headers
        all["Content-Type"] = "application/json"
        return StrataRequest(method, path, headers: all, body: Data(body))
    }
}
