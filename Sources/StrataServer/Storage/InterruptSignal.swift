import Synchronization

/// A one-shot signal that the statements of some work should stop: fired when a client hangs up
/// (one per connection), or when the server's shutdown grace has passed (one per server).
/// ``StatementWatch`` looks at the signals of the statements it watches a few times a second.
final class InterruptSignal: Sendable {
    /// Why statements are stopped; the client sees a different answer for each.
    enum Reason: UInt8, Sendable {
        /// The client closed its connection: nobody waits for the answer.
        case abandoned = 1
        /// The server is shutting down.
        case shutdown = 2
    }

    let reason: Reason
    private let fired = Atomic(false)

    init(reason: Reason) {
        self.reason = reason
    }

    var isFired: Bool { fired.load(ordering: .acquiring) }

    /// Later calls do nothing.
    func fire() {
        fired.store(true, ordering: .releasing)
    }
}
