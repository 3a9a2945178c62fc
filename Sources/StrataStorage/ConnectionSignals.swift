import NIOCore
import Synchronization

/// Each open connection's hang-up signal, found by its channel, so that a request can tell its
/// statements to stop when its client goes away (see ``StatementLimits/abandonment``).
///
/// The signal is made by the connection's ``ConnectionGuard`` on the event loop; a request runs
/// elsewhere and holds only the channel its context was made from, hence this table.
package final class ConnectionSignals: Sendable {
    package static let shared = ConnectionSignals()

    private let signals = Mutex<[ObjectIdentifier: InterruptSignal]>([:])

    package func register(_ signal: InterruptSignal, for channel: any Channel) {
        signals.withLock { $0[ObjectIdentifier(channel)] = signal }
    }

    package func remove(for channel: any Channel) {
        _ = signals.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The hang-up signal of the connection behind a channel; nil for channels without a guard (tests).
    package func signal(for connection: ObjectIdentifier) -> InterruptSignal? {
        signals.withLock { $0[connection] }
    }
}
