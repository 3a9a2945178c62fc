import Synchronization

/// The idempotent change sets this process is applying now, by caller and key: a second request
/// with the same key while the first runs is refused (409) instead of racing it. Across servers the
/// receipts' primary key is what stops a second application (``ChangeReceipts``).
final class ChangeSetClaims: Sendable {
    private let running = Mutex<Set<String>>([])

    init() {}

    /// Claims `name`; false when it is claimed already.
    package func claim(_ name: String) -> Bool {
        running.withLock { $0.insert(name).inserted }
    }

    package func release(_ name: String) {
        _ = running.withLock { $0.remove(name) }
    }
}
