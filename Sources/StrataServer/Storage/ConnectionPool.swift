/// A fixed set of connections lent to one caller at a time; callers wait in order when all are busy.
actor ConnectionPool<Connection: Sendable> {
    private var idle: [Connection]
    private var waiters: [CheckedContinuation<Connection, any Error>] = []
    private var closed = false

    init(_ connections: [Connection]) {
        self.idle = connections
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

    private func acquire() async throws -> Connection {
        guard !closed else { throw StorageError.unavailable("the database is closed") }
        if let connection = idle.popLast() { return connection }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    private func release(_ connection: Connection) {
        if !waiters.isEmpty {
            waiters.removeFirst().resume(returning: connection)
        } else {
            idle.append(connection)
        }
    }

    /// Marks the pool closed and hands back the idle connections for closing.
    /// Connections in use are returned to callers still running; the server stops requests first.
    func drain() -> [Connection] {
        closed = true
        for waiter in waiters { waiter.resume(throwing: StorageError.unavailable("the database is closed")) }
        waiters.removeAll()
        defer { idle.removeAll() }
        return idle
    }
}
