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

    /// The peer's IP address, for throttling failed logins; nil when the transport has none (tests).
    /// Formatted when asked for: most requests never need it.
    var clientAddress: String? { remoteAddress?.ipAddress }

    func setRoute(_ label: String) {
        routeLabel.withLockedValue { $0 = label }
    }
}
