import NIOSSL
import Logging
import PostgresNIO

/// The one place postgres-nio is configured: the server's pool and the control connection
/// (Application) and the commands' pool (Admin) are all made from these settings.
extension PostgresLocation {
    /// The settings of a single connection outside any pool (the control connection).
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
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
    package func clientConfiguration(keepingOpen connections: Int?) -> PostgresClient.Configuration {
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

    /// Runs `body` with a client of this database that opens connections on demand, for commands
    /// that run and exit; the client stops when `body` returns or throws.
    func withClient<T: Sendable>(logger: Logger, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
