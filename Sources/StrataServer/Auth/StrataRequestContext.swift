import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The per-request context: Hummingbird's core storage plus what Strata's middleware share.
public struct StrataRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The low-cardinality route name handlers set for metrics (`odata.collection`, `health`, …).
    /// A box, because middleware outside the handler reads what the handler wrote.
    let routeLabel = NIOLockedValueBox("unmatched")
    /// The authenticated caller; nil for anonymous requests.
    var principal: Principal?
    let remoteAddress: SocketAddress?
    /// The connection, whose hang-up signal (``ConnectionSignals``) stops the request's statements.
    let connection: ObjectIdentifier

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.connection = ObjectIdentifier(source.channel)
    }

    /// The client's IP address, for throttling failed logins and counting queries per caller: the
    /// peer's, or behind a trusted proxy the one it forwarded. Nil when the transport has none
    /// (tests). Worked out when asked for: most requests never need it.
    func clientAddress(_ headers: HTTPFields, trusting proxies: TrustedProxies) -> String? {
        Self.clientAddress(peer: remoteAddress, headers, trusting: proxies)
    }

    static func clientAddress(peer: SocketAddress?, _ headers: HTTPFields, trusting proxies: TrustedProxies) -> String? {
        guard let peer = peer?.ipAddress else { return nil }
        return proxies.client(peer: peer, headers: headers)
    }

    func setRoute(_ label: String) {
        routeLabel.withLockedValue { $0 = label }
    }
}
