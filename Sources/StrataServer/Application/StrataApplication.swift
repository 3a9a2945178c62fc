import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import UnixSignals
import StrataCore

/// Builds a ready-to-run Strata server from a configuration.
///
/// The returned application opens the databases first; its service group runs PostgreSQL's pool
/// (when used), then runs the configuration's provisioners (the demo's, say) and loads the catalogs
/// before the HTTP server accepts connections. On SIGINT/SIGTERM the server finishes in-flight
/// requests, then the databases close.
public func buildApplication(_ configuration: StrataConfiguration, logger: Logger? = nil) async throws -> some ApplicationProtocol {
    try await makeApplication(configuration, logger: logger).application
}

/// Runs a Strata server until SIGTERM or SIGINT, then shuts it down within a bound: no new
/// connections, requests in flight get ``StrataConfiguration/shutdownGrace`` to finish, then the
/// statements still running stop and the process has a few more seconds to answer and close.
public func runServer(_ configuration: StrataConfiguration, logger: Logger? = nil) async throws {
    let (application, runtime) = try await makeApplication(configuration, logger: logger)
    var group = ServiceGroupConfiguration(
        services: [.init(service: application), .init(service: ShutdownGraceService(runtime: runtime))],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: runtime.logger)
    group.maximumGracefulShutdownDuration = configuration.shutdownGrace + .seconds(5)
    group.maximumCancellationDuration = .seconds(2)
    try await ServiceGroup(configuration: group).run()
}

private func makeApplication(_ configuration: StrataConfiguration, logger: Logger?) async throws
    -> (application: some ApplicationProtocol, runtime: StrataRuntime) {
    var logger = logger ?? Logger(label: "strata", factory: ServerLogHandler.standardOutput)
    if logger.logLevel > configuration.logLevel || logger.logLevel == .info { logger.logLevel = configuration.logLevel }
    let metrics = StrataMetrics()
    var services: [any Service] = []
    let store: any ServiceStore
    let dataDirectory = URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true)
    switch configuration.database {
    case nil:
        store = try await SQLiteServiceStore.open(directory: dataDirectory, singleFile: nil, counter: metrics.statementCounter, logger: logger)
    case .sqliteFile(let path):
        store = try await SQLiteServiceStore.open(directory: dataDirectory, singleFile: URL(fileURLWithPath: path),
                                                  counter: metrics.statementCounter, logger: logger)
    case .postgres(let location):
        let pool = PostgresPool(configuration: location.clientConfiguration(keepingOpen: configuration.databaseConnections), logger: logger)
        services.append(pool)
        let control = PostgresControlConnection(configuration: try location.connectionConfiguration(), logger: logger)
        store = PostgresServiceStore(pool: pool, counter: metrics.statementCounter, logger: logger,
                                     connectionWait: configuration.databaseConnectionWait, control: control,
                                     // Two connections always free for key lookups, writes and sign-ins.
                                     scanLimit: max(1, configuration.databaseConnections - 2))
    }
    let auth = try await AuthServices.make(
        settings: configuration.auth, system: SystemDatabase(database: store.system, schema: store.systemSchema),
        dataDirectory: configuration.dataDirectory, logger: logger)
    let runtime = StrataRuntime(configuration: configuration, store: store, metrics: metrics, logger: logger, auth: auth)
    services.append(RuntimeShutdownService(runtime: runtime))
    var app = Application(
        router: Routes.responder(runtime: runtime),
        server: .strata(limits: configuration.connections),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Strata",
                             availableConnectionsDelegate: .maximum(configuration.connections.maxConnections, logger: logger)),
        services: services,
        logger: logger)
    app.beforeServerStarts {
        try await runtime.start()
    }
    return (app, runtime)
}

extension PostgresLocation {
    /// The settings of a single connection outside any pool (the control connection).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: username, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: tls = .disable
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    /// postgres-nio's configuration for this location, with a pool that opens connections on demand
    /// (up to 20) and closes them after a minute unused: right for commands that run and exit.
    var clientConfiguration: PostgresClient.Configuration {
        clientConfiguration(keepingOpen: nil)
    }

    /// postgres-nio's configuration for this location. With `connections`, the pool is fixed: that
    /// many connections, opened at start and kept open, as a server wants.
    ///
    /// Why fixed, and why without postgres-nio's keep-alive query: the pool gives each connection
    /// that goes idle a keep-alive timer and (above the minimum) an idle-timeout timer, each a task
    /// with a sleep, cancelled when the connection is leased again, so every request paid for two
    /// timers: ~100 µs of CPU, a third of a GET by key. A fixed pool has no idle timeout; without
    /// the keep-alive, a connection that PostgreSQL closes is still dropped (the pool sees the socket
    /// close), while one cut off silently by the network fails on its next use.
    func clientConfiguration(keepingOpen connections: Int?) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        var configuration = socketPath.map {
            PostgresClient.Configuration(unixSocketPath: $0, username: username, password: password, database: database)
        } ?? PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        // Timestamps without time zone hold UTC; the session must agree so that comparisons with
        // timestamptz values and now() are UTC too.
        configuration.options.additionalStartupParameters = [("TimeZone", "UTC")]
        configuration.options.keepAliveBehavior = nil
        if let connections {
            configuration.options.minimumConnections = connections
            configuration.options.maximumConnections = connections
        }
        return configuration
    }
}
