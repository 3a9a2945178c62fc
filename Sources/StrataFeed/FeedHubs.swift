import Logging
import Synchronization
import StrataOData

/// The server's change-stream hubs, one per tracked service, made when the first subscriber or
/// long-poll comes. A reloaded service gets a new hub; the old one ends its streams, and their
/// clients resume with `Last-Event-ID` on the new one (or get `410` if what they may read changed).
package final class FeedHubs: Sendable {
    private let hubs = Mutex<[String: FeedHub]>([:])
    let settings: FeedSettings
    let logger: Logger

    package init(settings: FeedSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// The hub of `service` (the full model, not a caller's view).
    package func hub(for service: ODataService) -> FeedHub {
        let (hub, replaced) = hubs.withLock { hubs -> (FeedHub, FeedHub?) in
            if let hub = hubs[service.name], hub.service === service { return (hub, nil) }
            let hub = FeedHub(service: service, settings: settings, logger: logger)
            let old = hubs.updateValue(hub, forKey: service.name)
            return (hub, old)
        }
        if let replaced { Task { await replaced.close() } }
        return hub
    }

    /// A notification said that `service`'s log grew (PostgreSQL's `strata_feed` channel).
    package func wake(service: String) {
        guard let hub = hubs.withLock({ $0[service] }) else { return }
        Task { await hub.wake() }
    }

    /// Notifications may have been missed (the listener reconnected): every hub reads.
    package func wakeAll() {
        for hub in hubs.withLock({ Array($0.values) }) { Task { await hub.wake() } }
    }

    /// At shutdown: every stream ends, so that draining does not wait for them.
    package func closeAll() async {
        let all = hubs.withLock { hubs in
            defer { hubs = [:] }
            return Array(hubs.values)
        }
        for hub in all { await hub.close() }
    }
}
