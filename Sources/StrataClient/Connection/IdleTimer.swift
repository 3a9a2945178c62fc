import Foundation
import Synchronization

/// Fails a transfer that has been silent for longer than its timeout.
///
/// URLSession's own request timeout cannot be used per request: swift-corelibs-foundation applies
/// the session's `timeoutIntervalForRequest` and ignores `URLRequest.timeoutInterval`. Like
/// URLSession's, this is an idle timeout: every update from the transfer restarts it, so a large
/// download that keeps arriving never times out.
final class IdleTimer: Sendable {
    // The client's one lock style (see AsyncRequest for why `Mutex`).
    private struct State {
        var lastActivity = Date()
        var fired = false
        var watcher: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let timeout: TimeInterval

    init(timeout: TimeInterval) {
        self.timeout = timeout
    }

    /// Starts watching; `onTimeout` runs once if the transfer stays silent for the timeout.
    func start(onTimeout: @escaping @Sendable () -> Void) {
        let task = Task { [weak self] in
            while let self, !Task.isCancelled {
                let remaining = self.remaining()
                if remaining <= 0 {
                    if self.fire() { onTimeout() }
                    return
                }
                try? await Task.sleep(for: .seconds(remaining))
            }
        }
        state.withLock { $0.watcher = task }
    }

    /// Records that the transfer made progress.
    func touch() {
        state.withLock { $0.lastActivity = Date() }
    }

    /// Stops watching.
    func stop() {
        state.withLock { $0.watcher }?.cancel()
    }

    /// Whether the timer fired, so a cancellation that follows is reported as a timeout.
    var didFire: Bool {
        state.withLock { $0.fired }
    }

    private func remaining() -> TimeInterval {
        state.withLock { timeout - Date().timeIntervalSince($0.lastActivity) }
    }

    private func fire() -> Bool {
        state.withLock { state in
            guard !state.fired else { return false }
            state.fired = true
            return true
        }
    }
}
