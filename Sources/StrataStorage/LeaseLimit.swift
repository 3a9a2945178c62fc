import Synchronization

/// At most `limit` holders at once; the others wait in order. PostgreSQL scans take one of these
/// before a pooled connection, so that scans never hold every connection and key lookups, writes
/// and sign-ins always find one (SQLite keeps separate connections for scans instead).
final class LeaseLimit: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ limit: Int) {
        state = Mutex(State(available: max(1, limit)))
    }

    func with<T>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        let acquired = state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            let immediate = state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if immediate { continuation.resume() }
        }
    }

    private func release() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            // The place passes straight to the next waiter.
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.available += 1
            return nil
        }
        waiter?.resume()
    }
}
