import Synchronization

/// The leases in flight on a ``PostgresPool``, so that a request is not held by a connection that
/// will never answer.
///
/// When PostgreSQL dies, postgres-nio normally fails the statements of its connections as their
/// sockets close; seen here after a kill -9 of a primary, though, a statement on a connection of the
/// dead server sometimes never finished, and its request waited for ever (past a client's timeout,
/// during the twenty seconds Patroni takes to promote). So when the control connection finds the
/// database down, and when the pool is replaced (``PostgresPool/replace(host:)``: the database is
/// back, or a new primary was found), every lease still running on the old pool is answered 503 at
/// once; its task is left to end whenever postgres-nio lets it. A write caught so is an unknown
/// outcome, as with any lost connection: the server never sends it again.
final class LeaseAbandonment: Sendable {
    private struct Entry {
        var generation: Int
        var abandon: @Sendable () -> Void
    }

    private let entries = Mutex<(next: Int, all: [Int: Entry])>((0, [:]))

    /// Registers a lease on the pool `generation`; `abandon` answers its request. Returns the key to remove it by.
    func register(generation: Int, abandon: @escaping @Sendable () -> Void) -> Int {
        entries.withLock { entries in
            entries.next += 1
            entries.all[entries.next] = Entry(generation: generation, abandon: abandon)
            return entries.next
        }
    }

    func remove(_ key: Int) {
        _ = entries.withLock { $0.all.removeValue(forKey: key) }
    }

    /// Answers every lease on a pool older than `generation` (every lease, when nil).
    func abandon(before generation: Int?) {
        let abandoned = entries.withLock { entries -> [Entry] in
            let old = entries.all.filter { entry in generation.map { entry.value.generation < $0 } ?? true }
            for key in old.keys { entries.all.removeValue(forKey: key) }
            return Array(old.values)
        }
        for entry in abandoned { entry.abandon() }
    }
}

/// A lease's result, delivered once: by the lease when it ends, or by ``LeaseAbandonment``.
final class LeaseOutcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    /// Delivers `result` unless one was delivered already.
    func finish(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    /// Waits for the result.
    var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<T, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
