import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// postgres-nio's connection pool, which the server can replace by a fresh one.
///
/// While PostgreSQL is down, postgres-nio's pool retries with a delay that grows to a minute, so
/// after an outage it could take that long to notice the database is back. When the control
/// connection sees it back (``PostgresAvailability``), the server starts a new pool, which connects
/// at once, and stops the old one. A pool made from a given client (the command line, tests) is
/// never replaced and is run by its owner.
package final class PostgresPool: Service, Sendable {
    /// One per host of a multi-host location; the pool goes to one of them at a time.
    private let configurations: [PostgresClient.Configuration]
    private let logger: Logger
    private let state: Mutex<State>
    private let started: AsyncStream<PostgresClient>.Continuation
    private let starts: AsyncStream<PostgresClient>
    /// The leases in flight, answered at once when their pool is replaced or the database is down.
    let leases = LeaseAbandonment()

    private struct State {
        var client: PostgresClient
        /// Counts replacements: connection ids start again at 0 in each new pool.
        var generation = 0
        /// Which of ``configurations`` the current pool connects to.
        var host = 0
        var runs: [ObjectIdentifier: Task<Void, Never>] = [:]
    }

    /// A pool the server runs (as a service) and may replace.
    package convenience init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.init(configurations: [configuration], host: 0, logger: logger)
    }

    /// A pool the server runs and may replace, to `configurations[host]` first; a replacement may go
    /// to another host (a failover).
    package init(configurations: [PostgresClient.Configuration], host: Int, logger: Logger) {
        self.configurations = configurations
        self.logger = logger
        var state = State(client: PostgresClient(configuration: configurations[host], backgroundLogger: logger))
        state.host = host
        self.state = Mutex(state)
        (starts, started) = AsyncStream.makeStream()
    }

    /// The given client, run by its owner; never replaced.
    init(fixed client: PostgresClient, logger: Logger) {
        configurations = []
        self.logger = logger
        state = Mutex(State(client: client))
        (starts, started) = AsyncStream.makeStream()
        started.finish()
    }

    /// The pool to lease from now.
    var client: PostgresClient { state.withLock { $0.client } }

    /// The pool to lease from now, and which one it is (its connections' ids repeat other pools').
    var current: (client: PostgresClient, generation: Int) { state.withLock { ($0.client, $0.generation) } }

    var isReplaceable: Bool { !configurations.isEmpty }

    /// Which host of a multi-host location the current pool connects to.
    var host: Int { state.withLock { $0.host } }

    /// Runs the first pool and every later one until the service stops (or shuts down gracefully,
    /// as postgres-nio's own pool does).
    package func run() async {
        guard isReplaceable else { return }
        await cancelWhenGracefulShutdown { await self.runPools() }
    }

    private func runPools() async {
        start(client)
        await withTaskCancellationHandler {
            for await _ in starts {}
        } onCancel: {
            started.finish()
            let runs = state.withLock { Array($0.runs.values) }
            for run in runs { run.cancel() }
        }
        let runs = state.withLock { Array($0.runs.values) }
        for run in runs { await run.value }
    }

    private func start(_ client: PostgresClient) {
        let run = Task { await client.run() }
        state.withLock { $0.runs[ObjectIdentifier(client)] = run }
        started.yield(client)
    }

    /// Starts a new pool for new leases and stops the current one (its waiting leases fail, as they
    /// would have anyway while the database was away).
    ///
    /// `host` picks another of a multi-host location's hosts (the new primary); nil keeps the current one.
    func replace(host: Int? = nil) {
        guard isReplaceable else { return }
        let index = host.map { min(max(0, $0), configurations.count - 1) } ?? state.withLock { $0.host }
        let fresh = PostgresClient(configuration: configurations[index], backgroundLogger: logger)
        start(fresh)
        let retired = state.withLock { state -> Task<Void, Never>? in
            let old = state.client
            state.client = fresh
            state.host = index
            state.generation += 1
            return state.runs.removeValue(forKey: ObjectIdentifier(old))
        }
        retired?.cancel()
        leases.abandon(before: state.withLock { $0.generation })
        logger.notice("PostgreSQL is reachable again: opened a new connection pool")
    }
}
