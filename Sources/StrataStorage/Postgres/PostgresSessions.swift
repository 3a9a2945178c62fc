import Logging
import PostgresNIO
import Synchronization

/// What the server knows of each pooled PostgreSQL connection's session: its backend process, to
/// cancel the statement running there, and the `statement_timeout` it runs statements under.
///
/// PostgreSQL enforces the statement timeout itself; a request that wants another one than its
/// connection has (a service with its own, or no limit for the server's own work) sets it first,
/// in the same round trip that learns the backend's process id on a connection's first lease.
/// Stopping a statement early (the client hung up, the server shuts down) sends
/// `pg_cancel_backend` from the control connection, which works however busy the pool is.
///
/// A cancel is a signal to the backend, not to a statement: one that arrives after the statement
/// ended would stop the connection's next statement. So the lease that asked for a cancel keeps its
/// connection until the cancel has been delivered, and a backend ignores a cancel that finds it idle.
final class PostgresSessions: Sendable {
    private struct Session {
        var processID: Int32
        /// The session's `statement_timeout` in milliseconds; 0 is no limit.
        var timeout: Int64
    }

    /// By pool generation and connection id (``PostgresPool/current``).
    private let sessions = Mutex<[SessionKey: Session]>([:])

    private struct SessionKey: Hashable {
        var pool: Int
        var connection: PostgresConnection.ID
    }
    let pool: PostgresPool
    let control: PostgresControlConnection?
    /// Whether the database is known to be down; only with a control connection to ask.
    let availability: PostgresAvailability?
    private let logger: Logger

    /// Without a control connection, cancel requests borrow a pooled connection and an outage is
    /// not tracked (the command line and tests, which run no long statements).
    /// A standby's sessions do not track availability (`tracksAvailability`): its ``StandbySet`` polls it.
    init(pool: PostgresPool, control: PostgresControlConnection?, logger: Logger, tracksAvailability: Bool = true) {
        self.pool = pool
        self.control = control
        self.availability = tracksAvailability ? control.map { PostgresAvailability(control: $0, pool: pool, logger: logger) } : nil
        self.logger = logger
    }

    /// Makes the connection's session run statements under `timeout` (nil: no limit); answers the
    /// backend's process id. One round trip on a connection's first use and when the limit changes.
    func prepare(_ connection: PostgresConnection, pool: Int, timeout: Duration?) async throws -> Int32 {
        let milliseconds = timeout.map { max(1, Int64($0 / .milliseconds(1))) } ?? 0
        let key = SessionKey(pool: pool, connection: connection.id)
        if let known = sessions.withLock({ $0[key] }), known.timeout == milliseconds { return known.processID }
        // The value is the server's own setting, never request input; it is bound all the same.
        let rows = try await connection.query(
            "SELECT pg_backend_pid(), set_config('statement_timeout', \(String(milliseconds)), false)", logger: logger)
        var processID: Int32 = 0
        for try await (pid, _) in rows.decode((Int32, String).self) { processID = pid }
        let session = Session(processID: processID, timeout: milliseconds)
        sessions.withLock { sessions in
            // Connections come and go over a long run; forget all when the table has grown, as
            // every forgotten session is simply prepared again on its next lease.
            if sessions.count > 1_000 { sessions.removeAll() }
            sessions[key] = session
        }
        return processID
    }

    /// Asks PostgreSQL to cancel what the backend `processID` runs; returns when it was asked.
    func cancel(_ processID: Int32) async {
        let query: PostgresQuery = "SELECT pg_cancel_backend(\(processID))"
        do {
            if let control {
                try await control.run(query)
            } else {
                _ = try await pool.client.withConnection { try await $0.query(query, logger: logger) }
            }
        } catch {
            logger.warning("Cancelling a PostgreSQL statement failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
