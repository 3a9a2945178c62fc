import Logging
import PostgresNIO
import ServiceLifecycle
import StrataCore
import Synchronization

/// The standbys a server reads from (`--read-replica`), and the choice of one for each read.
///
/// A read goes to a standby only when the standby's last poll says it has replayed at least the
/// position the read must see (the caller's, ``ReadPositionScope``) and it is within the lag limit;
/// among those the reads take turns. Otherwise it goes to the primary. Polls run in the background
/// every ``pollInterval`` (every ``probeInterval`` for a standby that is down), so no request ever
/// waits for a standby to answer a question.
package final class StandbySet: Service, Sendable {
    let standbys: [Standby]
    let limit: ReplicaLagLimit
    private let primary: PostgresControlConnection
    private let metrics: StandbyMetrics
    private let logger: Logger
    private let positions = Mutex(PrimaryPositions())
    private let turn = Atomic<Int>(0)

    static let pollInterval: Duration = .milliseconds(100)
    static let probeInterval: Duration = .seconds(1)
    /// A standby whose pool has no connection for a read within this is passed over for the primary.
    static let leaseTimeout: Duration = .seconds(1)

    /// - Parameters:
    ///   - locations: the standbys.
    ///   - connections: each standby's pool size.
    ///   - primary: the control connection to the primary, polled for its log position.
    package init(locations: [PostgresLocation], connections: Int, limit: ReplicaLagLimit, primary: PostgresControlConnection,
                 counter: StatementCounter, metrics: StandbyMetrics, logger: Logger) throws {
        self.standbys = try locations.map { location in
            let pool = PostgresPool(configuration: location.clientConfiguration(keepingOpen: connections), logger: logger)
            let control = PostgresControlConnection(configuration: try location.connectionConfiguration(), logger: logger)
            let sessions = PostgresSessions(pool: pool, control: control, logger: logger, tracksAvailability: false)
            let database = PostgresDatabase(sessions: sessions, counter: counter, logger: logger, leaseTimeout: Self.leaseTimeout,
                                            scanLimit: max(1, connections - 2), role: .standby)
            return Standby(name: "\(location.host):\(location.port)", database: database, pool: pool, control: control)
        }
        self.limit = limit
        self.primary = primary
        self.metrics = metrics
        self.logger = logger
    }

    /// A standby that may serve a read that must see `required`, taking turns among those that may.
    func choose(after required: ReadPosition?) -> Standby? {
        let start = turn.add(1, ordering: .relaxed).newValue
        for step in 0..<standbys.count {
            let standby = standbys[(start + step) % standbys.count]
            if standby.serves(after: required, within: limit) { return standby }
        }
        return nil
    }

    /// Runs a read on a standby that may serve it; answers its result and the position it saw, or
    /// nil when no standby may (the caller reads the primary). A standby that fails the read for
    /// its own sake is marked down and the next is tried.
    func read<T: Sendable>(kind: PostgresDatabase.ReadKind, after required: ReadPosition?,
                           _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> (T, ReadPosition)? {
        var tried = 0
        while tried < standbys.count, let standby = choose(after: required) {
            tried += 1
            do {
                let result = try await standby.database.reporting(kind, body)
                metrics.read(standby.name)
                return result
            } catch StorageError.unavailable(let reason) {
                standby.markDown()
                metrics.failed(standby.name)
                logger.warning("A standby failed a read; it is read from again once it answers a poll, the primary served the read",
                               metadata: ["standby": .string(standby.name), "error": .string(reason)])
            } catch let error as StorageError where PostgresErrorMapping.isMissingObject(error) {
                // Behind a table or column the catalog (read on the primary) has: the primary serves
                // this read; the standby stays in the rotation, as it catches up by itself.
                metrics.failed(standby.name)
                return nil
            }
        }
        return nil
    }

    /// Waits at most `limit` until a standby's poll shows it may serve a read that must see
    /// `required`; answers whether one may. Looks every 20 ms, a fifth of ``pollInterval``.
    func awaitServing(after required: ReadPosition, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            if standbys.contains(where: { $0.serves(after: required, within: self.limit) }) { return true }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Opens a held snapshot (``HeldSnapshot``) on a standby that may serve a read that must see
    /// `required`, as ``read(kind:after:_:)`` chooses one; nil when none may (the primary holds it).
    func hold(after required: ReadPosition?, owner: ObjectIdentifier,
              deadline: ContinuousClock.Instant) async throws -> (HeldSnapshot, ReadPosition)? {
        var tried = 0
        while tried < standbys.count, let standby = choose(after: required) {
            tried += 1
            do {
                let held = try await standby.database.openHeld(owner: owner, deadline: deadline)
                metrics.read(standby.name)
                return held
            } catch StorageError.unavailable(let reason) {
                standby.markDown()
                metrics.failed(standby.name)
                logger.warning("A standby failed to open a snapshot; the primary holds it",
                               metadata: ["standby": .string(standby.name), "error": .string(reason)])
            }
        }
        return nil
    }

    /// Runs the standbys' pools and the polls until the server stops.
    package func run() async {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for standby in self.standbys {
                    group.addTask { await standby.pool.run() }
                    group.addTask { await self.watch(standby) }
                }
                group.addTask { await self.watchPrimary() }
                await group.waitForAll()
            }
        }
        for standby in standbys { await standby.control.close() }
    }

    private func watchPrimary() async {
        while !Task.isCancelled {
            // A primary that does not answer (or is in recovery during a failover) leaves the last samples.
            if let text = try? await primary.firstRow("SELECT pg_current_wal_lsn()::text")?.first, let text,
               let position = ReadPosition(text) {
                positions.withLock { $0.add(position, at: .now) }
            }
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    private func watch(_ standby: Standby) async {
        var reported = true
        while !Task.isCancelled {
            do {
                let polled = try await standby.poll()
                if polled.wasDown {
                    // Its pool may be far into postgres-nio's reconnection back-off; a fresh one connects now.
                    standby.pool.replace()
                    logger.notice("A standby answers again and serves reads", metadata: ["standby": .string(standby.name)])
                }
                reported = true
                let lag = polled.replayed.flatMap { replayed in positions.withLock { $0.lag(of: replayed, at: .now) } }
                standby.setLag(bytes: lag?.bytes, time: lag?.time)
                metrics.polled(standby.name, standby.serves(after: nil, within: limit), lag?.bytes, lag.map { $0.time / .seconds(1) })
                try? await Task.sleep(for: Self.pollInterval)
            } catch {
                if reported {
                    logger.warning("A standby does not answer; it serves no reads until it does",
                                   metadata: ["standby": .string(standby.name), "error": "\(String(reflecting: error))"])
                    reported = false
                }
                metrics.polled(standby.name, false, nil, nil)
                try? await Task.sleep(for: Self.probeInterval)
            }
        }
    }
}
