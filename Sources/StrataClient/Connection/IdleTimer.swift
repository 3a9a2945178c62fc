import Foundation

/// Fails a transfer that has been silent for longer than its timeout.
///
/// URLSession's own request timeout cannot be used per request: swift-corelibs-foundation applies
/// the session's `timeoutIntervalForRequest` and ignores `URLRequest.timeoutInterval`. Like
/// URLSession's, this is an idle timeout: every update from the transfer restarts it, so a large
/// download that keeps arriving never times out.
///
/// `@unchecked Sendable`: `lastActivity` and `fired` are only read and written while holding `lock`;
/// the task it cancels is itself thread-safe.
final class IdleTimer: @unchecked Sendable {
    // The client's one lock style (see AsyncRequest for why NSLock rather than Mutex).
    private let lock = NSLock()
    private let timeout: TimeInterval
    private var lastActivity = Date()
    private var fired = false
    private var watcher: Task<Void, Never>?

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
        lock.withLock { watcher = task }
    }

    /// Records that the transfer made progress.
    func touch() {
        lock.withLock { lastActivity = Date() }
    }

    /// Stops watching.
    func stop() {
        lock.withLock { watcher }?.cancel()
    }

    /// Whether the timer fired, so a cancellation that follows is reported as a timeout.
    var didFire: Bool {
        lock.withLock { fired }
    }

    private func remaining() -> TimeInterval {
        lock.withLock { timeout - Date().timeIntervalSince(lastActivity) }
    }

    private func fire() -> Bool {
        lock.withLock {
            guard !fired else { return false }
            fired = true
            return true
        }
    }
}
