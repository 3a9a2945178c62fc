import Logging
import PostgresNIO
import StrataCore
import Synchronization

/// One streaming standby that serves reads: its own pool of connections, and a control connection
/// that asks it every poll how far it has replayed the primary's log.
///
/// Nothing waits on a standby: its state is what the last poll found, a read goes to it only when
/// that state says it may (``StandbySet``), and a read that fails for the standby's sake (lost
/// connection, no connection within a second, a query cancelled by replay) marks it down and is
/// run on the primary instead. While down, it is probed every ``StandbySet/probeInterval``; when it
/// answers again its pool is replaced by a fresh one, which connects at once.
final class Standby: Sendable {
    /// Host and port, for logs and metrics.
    let name: String
    let database: PostgresDatabase
    let pool: PostgresPool
    let control: PostgresControlConnection

    struct State: Sendable {
        /// Answered its last poll.
        var up = false
        /// Still a standby (`pg_is_in_recovery()`); a promoted one is a primary and serves no reads as a standby.
        var inRecovery = false
        /// How far it had replayed at its last poll: a lower bound of what a read there sees.
        var replayed: ReadPosition?
        var lagBytes: UInt64?
        var lag: Duration?
        /// Failed a poll or a read since it last answered: its pool is replaced when it answers again.
        var failed = false
    }

    private let state = Mutex(State())

    init(name: String, database: PostgresDatabase, pool: PostgresPool, control: PostgresControlConnection) {
        self.name = name
        self.database = database
        self.pool = pool
        self.control = control
    }

    var current: State { state.withLock { $0 } }

    /// Whether it may serve a read that must see `required`, within `limit`.
    func serves(after required: ReadPosition?, within limit: ReplicaLagLimit) -> Bool {
        let state = current
        guard state.up, state.inRecovery, let replayed = state.replayed else { return false }
        if let required, replayed < required { return false }
        switch limit {
        case .bytes(let bytes): return (state.lagBytes ?? .max) <= bytes
        case .time(let time): return (state.lag ?? .seconds(Int64.max / 2)) <= time
        }
    }

    /// Asks the standby how far it has replayed; answers whether it was down before (so that its
    /// pool is replaced). Throws when it does not answer; it is then down.
    func poll() async throws -> (replayed: ReadPosition?, inRecovery: Bool, wasDown: Bool) {
        do {
            let row = try await control.firstRow("SELECT pg_is_in_recovery()::text, pg_last_wal_replay_lsn()::text")
            let inRecovery = row?.first.flatMap { $0 } == "true"
            let replayed = (row?.count ?? 0) > 1 ? row?[1].flatMap { ReadPosition($0) } : nil
            let wasDown = state.withLock { state in
                defer {
                    state.up = true
                    state.inRecovery = inRecovery
                    // Replay only moves forward while the standby runs; a restart starts again from what the poll says.
                    state.replayed = replayed
                }
                defer { state.failed = false }
                return state.failed
            }
            return (replayed, inRecovery, wasDown)
        } catch {
            markDown()
            throw error
        }
    }

    /// Records the lag the set computed from the primary's position.
    func setLag(bytes: UInt64?, time: Duration?) {
        state.withLock { state in
            state.lagBytes = bytes
            state.lag = time
        }
    }

    /// It failed a read or a poll: no reads until a poll finds it answering again.
    func markDown() {
        state.withLock { state in
            state.up = false
            state.failed = true
            state.replayed = nil
            state.lagBytes = nil
            state.lag = nil
        }
    }
}
