import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The per-request context: Hummingbird's core storage plus what Strata's middleware share.
public struct StrataRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The low-cardinality route name handlers set for metrics (`odata.collection`, `health`, …).
    /// A shared box, because middleware outside the handler reads what the handler wrote to its
    /// copy of the context.
    package let routeLabel = RouteLabel()
    /// The authenticated caller; nil for anonymous requests.
    package var principal: Principal?
    package let remoteAddress: SocketAddress?
    /// The connection, whose hang-up signal (``ConnectionSignals``) stops the request's statements.
    package let connection: ObjectIdentifier

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.connection = ObjectIdentifier(source.channel)
    }

    /// The client's IP address, for throttling failed logins and counting queries per caller: the
    /// peer's, or behind a trusted proxy the one it forwarded. Nil when the transport has none
    /// (tests). Worked out when asked for: most requests never need it.
    package func clientAddress(_ headers: HTTPFields, trusting proxies: TrustedProxies) -> String? {
        Self.clientAddress(peer: remoteAddress, headers, trusting: proxies)
    }

    package static func clientAddress(peer: SocketAddress?, _ headers: HTTPFields, trusting proxies: TrustedProxies) -> String? {
        guard let peer = peer?.ipAddress else { return nil }
        return proxies.client(peer: peer, headers: headers)
    }

    package func setRoute(_ label: String) {
        routeLabel.set(label)
    }
}

/// The route name of one request, written by the handler and read by the metrics middleware: a
/// class around a `Mutex` (the server's one lock style), because the context it sits in is copied.
package final class RouteLabel: Sendable {
    private let label = Mutex("unmatched")

    func set(_ value: String) { label.withLock { $0 = value } }
    package var value: String { label.withLock { $0 } }
}
