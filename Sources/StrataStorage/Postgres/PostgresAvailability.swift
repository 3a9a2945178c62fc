import Logging
import PostgresNIO
import Synchronization

/// Whether PostgreSQL is known to be down, so that requests fail at once instead of each waiting
/// for a connection, and the server notices within a second when it is back.
///
/// A lease that cannot get a connection asks the control connection (short connect timeout). If
/// that fails too, the database is down: leases fail at once with 503 while a prober tries the
/// control connection every ``probeInterval``. When it answers again, the pool is replaced by a
/// fresh one (``PostgresPool``), which connects immediately, and leases go through again. With a
/// multi-host location the control connection answers only from a host that accepts writes, so a
/// failover is an outage until a standby is promoted, and the fresh pool goes to the new primary.
final class PostgresAvailability: Sendable {
    let control: PostgresControlConnection
    let pool: PostgresPool
    private let logger: Logger
    private let state = Mutex(State())

    static let probeInterval: Duration = .seconds(1)

    private struct State {
        var down = false
        var probing = false
    }

    init(control: PostgresControlConnection, pool: PostgresPool, logger: Logger) {
        self.control = control
        self.pool = pool
        self.logger = logger
    }

    var isDown: Bool { state.withLock { $0.down } }

    /// Throws at once while the database is known to be down.
    func requireUp() throws(StorageError) {
        if isDown { throw .unavailable("PostgreSQL is down; the server checks every second and serves again once it answers") }
    }

    /// Asks the control connection whether the database answers (after a lease could not get a
    /// connection: down, or only busy? and for health checks); answers whether it is down.
    @discardableResult
    func check() async -> Bool {
        if isDown { return true }
        do {
            try await control.check()
            await followControlHost()
            return false
        } catch {
            markDown(error)
            return true
        }
    }

    /// With several hosts, the control connection may have found a new primary without the
    /// database ever looking down (the promotion came before the first check): the pool follows it.
    private func followControlHost() async {
        guard let host = await control.hostIndex, host != pool.host else { return }
        logger.notice("PostgreSQL's primary is another host now: opened a new connection pool to it", metadata: ["host": "\(host)"])
        pool.replace(host: host)
    }

    private func markDown(_ error: any Error) {
        let startProber = state.withLock { state in
            state.down = true
            defer { state.probing = true }
            return !state.probing
        }
        // Leases still running may be on connections that will never answer (LeaseAbandonment);
        // the control connection could not reach the database either, so they are answered now.
        pool.leases.abandon(before: nil)
        guard startProber else { return }
        logger.error("PostgreSQL does not answer; requests fail at once until it does", metadata: ["error": "\(String(reflecting: error))"])
        Task { await self.probe() }
    }

    private func probe() async {
        while true {
            try? await Task.sleep(for: Self.probeInterval)
            do {
                try await control.check()
                break
            } catch {
                continue
            }
        }
        // With several hosts, the one that answered may be a new primary (after a failover).
        pool.replace(host: await control.hostIndex)
        state.withLock { $0 = State() }
    }
}
