import ArgumentParser
import Foundation
import StrataServer

/// `strata serve`'s bounds on time and connections: how long statements and slow clients may take,
/// how many connections may be open, and how long a shutdown waits for requests in flight.
struct TimeLimitOptions: ParsableArguments {
    @Option(name: .customLong("statement-timeout"), help: "The longest one SQL statement may run (500ms, 10s, 2m; 0 for no limit); a service's own setting wins. (env: STRATA_STATEMENT_TIMEOUT, default: 10s)")
    var statementTimeout: String?

    @Option(name: .customLong("header-timeout"), help: "How long a client may take to send a request's head. (env: STRATA_HEADER_TIMEOUT, default: 15s)")
    var headerTimeout: String?

    @Option(name: .customLong("idle-timeout"), help: "How long a keep-alive connection may wait for its next request. (env: STRATA_IDLE_TIMEOUT, default: 60s)")
    var idleTimeout: String?

    @Option(name: .customLong("min-body-rate"), help: "The slowest a request body may arrive, in bytes per second, after 5 s. (env: STRATA_MIN_BODY_RATE, default: 240)")
    var minimumBodyRate: Int?

    @Option(name: .customLong("send-timeout"), help: "How long a response may wait for the client to read more of it. (env: STRATA_SEND_TIMEOUT, default: 30s)")
    var sendTimeout: String?

    @Option(name: .customLong("max-connections"), help: "Open connections at most; more wait until one closes. (env: STRATA_MAX_CONNECTIONS, default: 1000)")
    var maxConnections: Int?

    @Option(name: .customLong("shutdown-grace"), help: "At SIGTERM, how long requests in flight may take before their statements are stopped. (env: STRATA_SHUTDOWN_GRACE, default: 10s)")
    var shutdownGrace: String?

    func apply(to configuration: inout StrataConfiguration) throws {
        let environment = ProcessInfo.processInfo.environment
        func duration(_ option: String?, _ flag: String, _ variable: String) throws -> Duration? {
            try (option ?? environment[variable]).map { try DurationText.parse($0, option: flag) }
        }
        if let timeout = try duration(statementTimeout, "--statement-timeout", "STRATA_STATEMENT_TIMEOUT") {
            configuration.statementTimeout = timeout == .zero ? nil : timeout
        }
        let positive: [(String?, String, String, WritableKeyPath<ConnectionLimits, Duration>)] = [
            (headerTimeout, "--header-timeout", "STRATA_HEADER_TIMEOUT", \.headerTimeout),
            (idleTimeout, "--idle-timeout", "STRATA_IDLE_TIMEOUT", \.idleTimeout),
            (sendTimeout, "--send-timeout", "STRATA_SEND_TIMEOUT", \.sendTimeout),
        ]
        for (option, flag, variable, path) in positive {
            guard let value = try duration(option, flag, variable) else { continue }
            guard value >= .seconds(1) else { throw ValidationError("\(flag) must be at least 1s") }
            configuration.connections[keyPath: path] = value
        }
        if let rate = try minimumBodyRate ?? environment["STRATA_MIN_BODY_RATE"].map({ try ServeCommand.integer($0, "STRATA_MIN_BODY_RATE") }) {
            guard rate >= 0 else { throw ValidationError("--min-body-rate must not be negative") }
            configuration.connections.minimumBodyRate = rate
        }
        if let count = try maxConnections ?? environment["STRATA_MAX_CONNECTIONS"].map({ try ServeCommand.integer($0, "STRATA_MAX_CONNECTIONS") }) {
            guard count >= 1 else { throw ValidationError("--max-connections must be at least 1") }
            configuration.connections.maxConnections = count
        }
        if let grace = try duration(shutdownGrace, "--shutdown-grace", "STRATA_SHUTDOWN_GRACE") {
            configuration.shutdownGrace = grace
        }
    }
}
