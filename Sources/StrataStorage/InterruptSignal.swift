import Synchronization

/// A one-shot signal that the statements of some work should stop: fired when a client hangs up
/// (one per connection), or when the server's shutdown grace has passed (one per server).
/// ``StatementWatch`` looks at the signals of the statements it watches a few times a second.
package final class InterruptSignal: Sendable {
    /// Why statements are stopped; the client sees a different answer for each.
    package enum Reason: UInt8, Sendable {
        /// The client closed its connection: nobody waits for the answer.
        case abandoned = 1
        /// The server is shutting down.
        case shutdown = 2
    }

    let reason: Reason
    private let fired = Atomic(false)
    /// Tasks waiting in ``wait()`` (a change stream's writer), resumed by ``fire()``.
    private let waiters = Mutex<(next: Int, list: [Int: CheckedContinuation<Void, Never>])>((0, [:]))

    package init(reason: Reason) {
        self.reason = reason
    }

    package var isFired: Bool { fired.load(ordering: .acquiring) }

    /// Later calls do nothing.
    package func fire() {
        fired.store(true, ordering: .releasing)
        let waiting = waiters.withLock { state in
            defer { state.list = [:] }
            return Array(state.list.values)
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Returns when the signal fires, or when the calling task is cancelled.
    package func wait() async {
        let id = waiters.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = waiters.withLock { state -> Bool in
                    // Fired, or cancelled, before the continuation was stored: do not wait.
                    guard !isFired, !Task.isCancelled else { return true }
                    state.list[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            waiters.withLock { $0.list.removeValue(forKey: id) }?.resume()
        }
    }
}
