import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import UnixSignals
import StrataCore
import StrataIdentity
import StrataStorage
import StrataFeed

/// Builds a ready-to-run Strata server from a configuration.
///
/// The returned application opens the databases first; its service group runs PostgreSQL's pool
/// (when used), then runs the configuration's provisioners (the demo's, say) and loads the catalogs
/// before the HTTP server accepts connections. On SIGINT/SIGTERM the server finishes in-flight
/// requests, then the databases close.
public func buildApplication(_ configuration: StrataConfiguration, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    try await makeApplication(configuration, logger: logger).application
}

/// The server ``buildApplication(_:logger:)`` builds, with the parts tests and wiring reach into.
struct BuiltServer<App: ApplicationProtocol>: Sendable {
    let application: App
    let runtime: StrataRuntime
    /// Applies the changes other servers announce; register the key ring's reload with
    /// ``SystemChangeDispatcher/onKeysChanged(_:)``.
    let changes: SystemChangeDispatcher
}

/// Runs a Strata server until SIGTERM or SIGINT, then shuts it down within a bound: no new
/// connections, requests in flight get ``StrataConfiguration/shutdownGrace`` to finish, then the
/// statements still running stop and the process has a few more seconds to answer and close.
public func runServer(_ configuration: StrataConfiguration, logger: Logger? = nil) async throws {
    let built = try await makeApplication(configuration, logger: logger)
    let (application, runtime) = (built.application, built.runtime)
    var group = ServiceGroupConfiguration(
        services: [.init(service: application), .init(service: ShutdownGrace(runtime: runtime))],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: runtime.logger)
    group.maximumGracefulShutdownDuration = configuration.shutdownGrace + .seconds(5)
    group.maximumCancellationDuration = .seconds(2)
    try await ServiceGroup(configuration: group).run()
}

/// Builds the server. On a PostgreSQL system database it also listens for the changes other servers
/// announce (``SystemChangeListener``), from the moment the runtime has started.
func makeApplication(_ configuration: StrataConfiguration, logger: Logger?) async throws
    -> BuiltServer<some ApplicationProtocol> {
    var logger = logger ?? Logger(label: "strata", factory: ServerLogHandler.standardOutput)
    if logger.logLevel > configuration.logLevel || logger.logLevel == .info { logger.logLevel = configuration.logLevel }
    let metrics = StrataMetrics()
    var services: [any Service] = []
    let store: any ServiceStore
    let dataDirectory = URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true)
    var system: SystemPlacement?
    if let location = configuration.systemDatabase {
        let opened = try await SystemPlacement.open(location, connections: max(2, configuration.databaseConnections / 2),
                                                    connectionWait: configuration.databaseConnectionWait, logger: logger)
        system = opened.placement
        if let pool = opened.pool { services.append(pool) }
    }
    if !configuration.readReplicas.isEmpty, !(configuration.database.map { if case .postgres = $0 { true } else { false } } ?? false) {
        throw ConfigurationError("--read-replica names standbys of a PostgreSQL --database; there is none")
    }
    switch configuration.database {
    case nil:
        store = try await SQLiteServiceStore.open(directory: dataDirectory, singleFile: nil, counter: metrics.statementCounter, logger: logger,
                                                  system: system, poolWaits: metrics.poolWaits)
    case .sqliteFile(let path):
        store = try await SQLiteServiceStore.open(directory: dataDirectory, singleFile: URL(fileURLWithPath: path),
                                                  counter: metrics.statementCounter, logger: logger, system: system,
                                                  poolWaits: metrics.poolWaits)
    case .postgres(let location):
        let candidates = location.candidates
        let control = PostgresControlConnection(candidates: try candidates.map { try $0.connectionConfiguration() }, logger: logger)
        // With several hosts the pool starts on the one that accepts writes; if none answers yet,
        // on the first, and the control connection's prober moves it once the primary is found.
        if location.hasSeveralHosts { try? await control.check() }
        let pool = PostgresPool(configurations: candidates.map { $0.clientConfiguration(keepingOpen: configuration.databaseConnections) },
                                host: await control.hostIndex ?? 0, logger: logger)
        services.append(pool)
        var standbys: StandbySet?
        if !configuration.readReplicas.isEmpty {
            let set = try StandbySet(locations: configuration.readReplicas, connections: configuration.databaseConnections,
                                     limit: configuration.maxReplicaLag, primary: control, counter: metrics.statementCounter,
                                     metrics: metrics.standbys, logger: logger)
            services.append(set)
            standbys = set
        }
        store = PostgresServiceStore(pool: pool, counter: metrics.statementCounter, logger: logger,
                                     connectionWait: configuration.databaseConnectionWait, control: control,
                                     // Two connections always free for key lookups, writes and sign-ins.
                                     scanLimit: max(1, configuration.databaseConnections - 2), system: system,
                                     poolWaits: metrics.poolWaits, standbys: standbys)
    }
    let auth = try await AuthRuntime.make(
        settings: configuration.auth, system: SystemDatabase(database: store.system, schema: store.systemSchema),
        dataDirectory: configuration.dataDirectory, logger: logger)
    let runtime = StrataRuntime(configuration: configuration, store: store, metrics: metrics, logger: logger, auth: auth)
    services.append(RuntimeShutdown(runtime: runtime))
    let changes = SystemChangeDispatcher(runtime: runtime)
    changes.onKeysChanged { [logger, feed = runtime.feed] in
        do {
            try await auth.reloadSigningKeys()
            try await feed.keys.reload()
        } catch {
            // The keys held so far stay in use; a token with a key id this server lacks makes it try again.
            logger.error("Could not read the token or feed keys again", metadata: ["error": "\(error)"])
        }
    }
    let started = StartSignal()
    // A signal has one waiter: the feed's listener gets its own.
    let feedStarted = StartSignal()
    if let location = configuration.systemPostgresLocation {
        var listener = PostgresChangeListener(candidates: try location.candidates.map { try $0.connectionConfiguration() },
                                              channel: runtime.system.changeChannel, logger: logger)
        listener.retry = configuration.changeListenerRetry
        services.append(SystemChangeListener(listener: listener, dispatcher: changes, started: started))
    }
    if case .postgres(let location) = configuration.database {
        var listener = PostgresChangeListener(candidates: try location.candidates.map { try $0.connectionConfiguration() },
                                              channel: FeedWaker.channel, logger: logger)
        listener.retry = configuration.changeListenerRetry
        services.append(FeedWaker(listener: listener, hubs: runtime.feedHubs, started: feedStarted))
    }
    var app = Application(
        router: Routes.responder(runtime: runtime),
        server: .strata(limits: configuration.connections),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Strata",
                             availableConnectionsDelegate: .maximum(configuration.connections.maxConnections, logger: logger)),
        services: services,
        onServerRunning: { [logger] channel in
            // The port the server got (also when --port 0 asked for any free one).
            let port = channel.localAddress?.port ?? configuration.port
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            logger.notice("The console is at http://\(host):\(port)/console")
        },
        logger: logger)
    app.beforeServerStarts {
        try await runtime.start()
        started.fire()
        feedStarted.fire()
    }
    return BuiltServer(application: app, runtime: runtime, changes: changes)
}
