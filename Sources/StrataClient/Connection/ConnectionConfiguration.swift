import Foundation

/// Settings a ``Connection`` applies to every request.
public struct ConnectionConfiguration: Sendable {
    /// Sent with every request unless the request sets the same header.
    public var defaultHeaders: StrataHeaders
    /// Seconds to wait for the server before a request fails with ``StrataError/Kind/timedOut``.
    public var timeout: TimeInterval
    /// Credentials for requests; nil sends none.
    public var authenticator: (any RequestAuthenticator)?

    /// Settings for a connection; the defaults accept JSON, wait 60 seconds and send no credentials.
    public init(
        defaultHeaders: StrataHeaders = ["Accept": "application/json"],
        timeout: TimeInterval = 60,
        authenticator: (any RequestAuthenticator)? = nil
    ) {
        self.defaultHeaders = defaultHeaders
        self.timeout = timeout
        self.authenticator = authenticator
    }
}
