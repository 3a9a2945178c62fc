import Synchronization

/// Up to `capacity` SQLite connections lent to one caller at a time, opened when they are first
/// needed; callers wait in order when all are busy.
///
/// Opened on demand because a connection costs two file descriptors (the database and its log)
/// and its own page cache: a server with many services, most of them idle, would otherwise hold
/// ten connections per database from the start (the test suite, with a hundred servers alive at
/// once, ran into the process's descriptor limit that way). Connections stay open once opened.
///
/// A lock rather than an actor: lending and returning are a few instructions, and the borrower's
/// work must run on its own task, not serialized on the pool's executor. Not generic, so that
/// lending needs no generic metadata at run time.
final class SQLiteHandlePool: Sendable {
    typealias Connection = SQLiteHandle

    private struct State {
        var idle: [Connection]
        /// Connections that exist or are being opened.
        var opened: Int
        var waiters: [CheckedContinuation<Grant, any Error>] = []
        var closed = false
    }

    /// What a caller gets: a connection, or the right to open one (a slot counted in `opened`).
    private enum Grant {
        case connection(Connection)
        case slot
    }

    private let state: Mutex<State>
    private let capacity: Int
    private let open: @Sendable () async throws -> Connection
    private let waits: PoolWaitRecorder

    /// A pool holding `connections`, which opens more with `open` up to `capacity` in all; `waits`
    /// hears how long each lease took, from asking to holding.
    init(_ connections: [Connection], capacity: Int, waits: PoolWaitRecorder = .none, open: @escaping @Sendable () async throws -> Connection) {
        self.capacity = max(capacity, connections.count, 1)
        self.waits = waits
        self.open = open
        state = Mutex(State(idle: connections, opened: connections.count))
    }

    func with<T: Sendable>(_ body: (Connection) async throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        let connection = try await acquire()
        waits.record(ContinuousClock.now - asked)
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
        case granted(Grant)
        case closed
        case wait
    }

    private func acquire() async throws -> Connection {
        let lending: Lending = state.withLock { state in
            if state.closed { return .closed }
            if let connection = state.idle.popLast() { return .granted(.connection(connection)) }
            if state.opened < capacity {
                state.opened += 1
                return .granted(.slot)
            }
            return .wait
        }
        let grant: Grant
        switch lending {
        case .granted(let granted): grant = granted
        case .closed: throw StorageError.unavailable("the database is closed")
        case .wait:
            grant = try await withCheckedThrowingContinuation { continuation in
                // The state may have changed since the first look: check again while enqueuing.
                let immediate: Result<Grant, any Error>? = state.withLock { state in
                    if state.closed { return .failure(StorageError.unavailable("the database is closed")) }
                    if let connection = state.idle.popLast() { return .success(.connection(connection)) }
                    if state.opened < capacity {
                        state.opened += 1
                        return .success(.slot)
                    }
                    state.waiters.append(continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        }
        switch grant {
        case .connection(let connection): return connection
        case .slot: return try await openInSlot()
        }
    }

    /// Opens a connection in a slot already counted. A connection opened after the pool closed is
    /// closed again; a failed open hands its slot to the first waiter, which tries for itself, so
    /// that no waiter waits for a connection that will never exist.
    private func openInSlot() async throws -> Connection {
        let connection: Connection
        do {
            connection = try await open()
        } catch {
            let heir: CheckedContinuation<Grant, any Error>? = state.withLock { state in
                if !state.closed, !state.waiters.isEmpty { return state.waiters.removeFirst() }
                state.opened -= 1
                return nil
            }
            heir?.resume(returning: .slot)
            throw error
        }
        let closed = state.withLock { state in
            if state.closed { state.opened -= 1 }
            return state.closed
        }
        if closed {
            connection.close()
            throw StorageError.unavailable("the database is closed")
        }
        return connection
    }

    private func release(_ connection: Connection) {
        enum Return { case waiter(CheckedContinuation<Grant, any Error>), idle, close }
        let next: Return = state.withLock { state in
            if state.closed { return .close }
            if !state.waiters.isEmpty { return .waiter(state.waiters.removeFirst()) }
            state.idle.append(connection)
            return .idle
        }
        switch next {
        case .waiter(let waiter): waiter.resume(returning: .connection(connection))
        case .idle: break
        // Returned after drain(): nobody else will close it.
        case .close: connection.close()
        }
    }

    /// How many connections exist or are being opened.
    var openedCount: Int { state.withLock { $0.opened } }

    /// How many callers are queued for a connection.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

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
