import Synchronization

/// A fixed set of SQLite connections lent to one caller at a time; callers wait in order when all are busy.
///
/// A lock rather than an actor: lending and returning are a few instructions, and the borrower's
/// work must run on its own task, not serialized on the pool's executor. Not generic, so that
/// lending needs no generic metadata at run time.
final class SQLiteHandlePool: Sendable {
    typealias Connection = SQLiteHandle

    private struct State {
        var idle: [Connection]
        var waiters: [CheckedContinuation<Connection, any Error>] = []
        var closed = false
    }

    private let state: Mutex<State>

    init(_ connections: [Connection]) {
        state = Mutex(State(idle: connections))
    }

    func with<T: Sendable>(_ body: (Connection) async throws -> T) async throws -> T {
        let connection = try await acquire()
        do {
            let result = try await body(connection)
            release(connection)
            return result
        } catch {
            release(connection)
            throw error
        }
    }

    private enum Lending {
        case lent(Connection)
        case closed
        case wait
    }

    private func acquire() async throws -> Connection {
        let lending: Lending = state.withLock { state in
            if state.closed { return .closed }
            if let connection = state.idle.popLast() { return .lent(connection) }
            return .wait
        }
        switch lending {
        case .lent(let connection): return connection
        case .closed: throw StorageError.unavailable("the database is closed")
        case .wait: break
        }
        return try await withCheckedThrowingContinuation { continuation in
            // The state may have changed since the first look: check again while enqueuing.
            let immediate: Result<Connection, any Error>? = state.withLock { state in
                if state.closed { return .failure(StorageError.unavailable("the database is closed")) }
                if let connection = state.idle.popLast() { return .success(connection) }
                state.waiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    private func release(_ connection: Connection) {
        let waiter: CheckedContinuation<Connection, any Error>? = state.withLock { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(connection)
            return nil
        }
        waiter?.resume(returning: connection)
    }

    /// Marks the pool closed and hands back the idle connections for closing.
    /// Connections in use are returned to callers still running; the server stops requests first.
    func drain() -> [Connection] {
        let (waiters, idle) = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll(); state.idle.removeAll() }
            return (state.waiters, state.idle)
        }
        for waiter in waiters { waiter.resume(throwing: StorageError.unavailable("the database is closed")) }
        return idle
    }
}
