import Logging
import ServiceLifecycle
import StrataStorage

/// Listens, on a PostgreSQL system database, for the changes other servers announce, and hands
/// them to the ``SystemChangeDispatcher``: one connection per server, outside the pool, for as long
/// as the server runs (``PostgresChangeListener``, which reconnects when it is lost).
///
/// It starts listening once the runtime has started (`started`), so that the services it may reload
/// have been loaded a first time; it stops when the server shuts down.
struct SystemChangeListener: Service {
    let listener: PostgresChangeListener
    let dispatcher: SystemChangeDispatcher
    let started: StartSignal

    func run() async throws {
        let (listener, dispatcher, started) = (self.listener, self.dispatcher, self.started)
        await cancelWhenGracefulShutdown {
            guard await started.wait() else { return }
            await listener.run { event in
                switch event {
                case .listening(let first): dispatcher.listening(true, first: first)
                case .lost: dispatcher.listening(false)
                case .notified(let payload): dispatcher.apply(payload)
                }
            }
        }
        dispatcher.listening(false)
        // This service stops before the databases close (it is registered after the service that
        // closes them): no reload it started may outlive them.
        await dispatcher.stop()
    }
}

/// Fired once, when the runtime has started; waited for by services that need it started.
final class StartSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    func fire() {
        continuation.yield()
        continuation.finish()
    }

    /// Whether the signal fired; false when the waiting task was cancelled first.
    func wait() async -> Bool {
        for await _ in stream { return true }
        return false
    }
}

extension StrataConfiguration {
    /// The PostgreSQL database holding the system tables, if they are on PostgreSQL: the
    /// `--system-database`, or else the served database.
    var systemPostgresLocation: PostgresLocation? {
        switch systemDatabase ?? database {
        case .postgres(let location)?: location
        default: nil
        }
    }
}
