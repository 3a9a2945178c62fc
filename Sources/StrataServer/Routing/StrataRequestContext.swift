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
    private let remoteAddress: SocketAddress?
    /// Fired when the client goes away (see ``ConnectionGuard``); nil without a real connection (tests).
    let hangUp: InterruptSignal?

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.hangUp = ConnectionSignals.shared.signal(for: source.channel)
    }

    /// The proxies whose `X-Forwarded-For` counts (set by the responder from the configuration).
    var trustedProxies = TrustedProxies.none

    /// The client's IP address, for throttling failed logins and counting queries per caller: the
    /// peer's, or behind a trusted proxy the one it forwarded. Nil when the transport has none
    /// (tests). Worked out when asked for: most requests never need it.
    func clientAddress(_ headers: HTTPFields) -> String? {
        guard let peer = remoteAddress?.ipAddress else { return nil }
        return trustedProxies.client(peer: peer, headers: headers)
    }

    func setRoute(_ label: String) {
        routeLabel.withLockedValue { $0 = label }
    }
}
