import Logging
import ServiceLifecycle
import StrataFeed
import StrataStorage

/// Listens, when services live in PostgreSQL, on the channel the change-capture triggers notify
/// (`strata_feed`, the service's name as payload) and wakes that service's change-stream hub, so a
/// commit through any server — or any other program — reaches this server's subscribers at once.
/// After a reconnection every hub reads its log: notifications may have been missed. The log is
/// the truth; a notification only says "read".
///
/// A connection of its own, not the system database's listener: the services' database may be
/// another one (`--system-database`).
struct FeedWaker: Service {
    let listener: PostgresChangeListener
    let hubs: FeedHubs
    let started: StartSignal

    static let channel = "strata_feed"

    func run() async throws {
        let (listener, hubs, started) = (self.listener, self.hubs, self.started)
        await cancelWhenGracefulShutdown {
            guard await started.wait() else { return }
            await listener.run { event in
                switch event {
                case .listening(let first): if !first { hubs.wakeAll() }
                case .lost: break
                case .notified(let service): hubs.wake(service: service)
                }
            }
        }
    }
}
