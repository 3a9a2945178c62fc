import Hummingbird
import NIOConcurrencyHelpers

/// The per-request context: Hummingbird's core storage plus what Strata's middleware share.
public struct StrataRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The low-cardinality route name handlers set for metrics (`odata.collection`, `health`, …).
    /// A box, because middleware outside the handler reads what the handler wrote.
    let routeLabel = NIOLockedValueBox("unmatched")
    /// The authenticated caller; nil for anonymous requests.
    var principal: Principal?
    /// The peer's IP address, for throttling failed logins; nil when the transport has none (tests).
    let clientAddress: String?

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress
    }

    func setRoute(_ label: String) {
        routeLabel.withLockedValue { $0 = label }
    }
}
