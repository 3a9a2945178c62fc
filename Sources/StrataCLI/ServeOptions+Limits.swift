import ArgumentParser
import StrataCore
import StrataServer
import StrataIdentity

/// The table's rows for the bounds on what one request may ask (past each, a 400 naming the limit)
/// and on the time and connections it may take.
extension ServeOptions {
    /// A limit of `QueryLimits`: a whole number of at least 1.
    private static func queryLimit(_ flag: String, _ variable: String, _ path: any WritableKeyPath<QueryLimits, Int> & Sendable,
                                   summary: String, given: @escaping @Sendable (ServeOptions) -> Int?) -> ServeOption<Int> {
        ServeOption(
            flag: flag, valueName: "N", variable: variable, defaultValue: .literal("\(defaults.queryLimits[keyPath: path])"),
            summary: summary, given: given, parse: ServeOptionValues.integer(variable: variable),
            apply: { value, setup in
                try ServeOptionValues.atLeast(1, value, "--" + flag)
                setup.configuration.queryLimits[keyPath: path] = value
            })
    }

    static let maxTop: ServeOption<Int> = queryLimit("max-top", "STRATA_MAX_TOP", \.maxTop,
                                   summary: "largest `$top` a client may ask for", given: { $0.maxTop })
    static let maxQueryLength: ServeOption<Int> = queryLimit("max-query-length", "STRATA_MAX_QUERY_LENGTH", \.maxQueryStringLength,
                                           summary: "longest query string, in bytes", given: { $0.maxQueryLength })
    static let maxFilterDepth: ServeOption<Int> = queryLimit("max-filter-depth", "STRATA_MAX_FILTER_DEPTH", \.maxFilterDepth,
                                           summary: "how deeply a `$filter` may nest", given: { $0.maxFilterDepth })
    static let maxFilterNodes: ServeOption<Int> = queryLimit("max-filter-nodes", "STRATA_MAX_FILTER_NODES", \.maxFilterNodes,
                                           summary: "operands and operators in one `$filter`", given: { $0.maxFilterNodes })
    static let maxExpandDepth: ServeOption<Int> = queryLimit("max-expand-depth", "STRATA_MAX_EXPAND_DEPTH", \.maxExpandDepth,
                                           summary: "navigation steps in one `$expand` path", given: { $0.maxExpandDepth })
    static let maxExpandWidth: ServeOption<Int> = queryLimit("max-expand-width", "STRATA_MAX_EXPAND_WIDTH", \.maxExpandWidth,
                                           summary: "paths in one `$expand`", given: { $0.maxExpandWidth })

    static let statementTimeout: ServeOption<String> = ServeOption(
        flag: "statement-timeout", valueName: "T", variable: "STRATA_STATEMENT_TIMEOUT",
        defaultValue: defaults.statementTimeout.map { .literal(DurationText.option($0)) } ?? .literal("0"),
        summary: "longest one SQL statement may run (`500ms`, `10s`, `2m`; `0`: no limit); past it, 400 `StatementTimeout`; a service's own setting wins",
        given: { $0.statementTimeout }, parse: { $0 },
        apply: { text, setup in
            let timeout = try DurationText.parse(text, option: "--statement-timeout")
            setup.configuration.statementTimeout = timeout == .zero ? nil : timeout
        })

    static let maxQueriesPerCaller: ServeOption<Int> = ServeOption(
        flag: "max-queries-per-caller", valueName: "N", variable: "STRATA_MAX_QUERIES_PER_CALLER",
        defaultValue: .literal("\(defaults.maxQueriesPerCaller)"),
        summary: "queries reading many rows (collections, `$count`, `$expand`, `$sql`, `$tables`) one account or client address runs at once; more wait, and past sixteen times as many waiting get 429",
        given: { $0.maxQueriesPerCaller }, parse: ServeOptionValues.integer(variable: "STRATA_MAX_QUERIES_PER_CALLER"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--max-queries-per-caller")
            setup.configuration.maxQueriesPerCaller = value
        })

    static let sqlCrossJoinLimit: ServeOption<Int> = ServeOption(
        flag: "sql-cross-join-limit", valueName: "N", variable: "STRATA_SQL_CROSS_JOIN_LIMIT",
        defaultValue: .literal("\(defaults.sqlCrossJoinLimit)"),
        summary: "row combinations a `$sql` query may build from tables it does not join on equal columns",
        given: { $0.sqlCrossJoinLimit }, parse: ServeOptionValues.integer(variable: "STRATA_SQL_CROSS_JOIN_LIMIT"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--sql-cross-join-limit")
            setup.configuration.sqlCrossJoinLimit = value
        })

    /// A timeout of `ConnectionLimits`: a duration of at least a second.
    private static func connectionTimeout(_ flag: String, _ variable: String, _ path: any WritableKeyPath<ConnectionLimits, Duration> & Sendable,
                                          summary: String, given: @escaping @Sendable (ServeOptions) -> String?) -> ServeOption<String> {
        ServeOption(
            flag: flag, valueName: "T", variable: variable, defaultValue: .literal(DurationText.option(defaults.connections[keyPath: path])),
            summary: summary, given: given, parse: { $0 },
            apply: { text, setup in
                let value = try DurationText.parse(text, option: "--" + flag)
                guard value >= .seconds(1) else { throw ValidationError("--\(flag) must be at least 1s") }
                setup.configuration.connections[keyPath: path] = value
            })
    }

    static let headerTimeout: ServeOption<String> = connectionTimeout("header-timeout", "STRATA_HEADER_TIMEOUT", \.headerTimeout,
                                                 summary: "how long a client may take to send a request's head after its first byte",
                                                 given: { $0.headerTimeout })
    static let idleTimeout: ServeOption<String> = connectionTimeout("idle-timeout", "STRATA_IDLE_TIMEOUT", \.idleTimeout,
                                               summary: "how long a keep-alive connection may wait for its next request",
                                               given: { $0.idleTimeout })
    static let sendTimeout: ServeOption<String> = connectionTimeout("send-timeout", "STRATA_SEND_TIMEOUT", \.sendTimeout,
                                               summary: "how long a response may wait for the client to read more of it",
                                               given: { $0.sendTimeout })

    static let minBodyRate: ServeOption<Int> = ServeOption(
        flag: "min-body-rate", valueName: "N", variable: "STRATA_MIN_BODY_RATE",
        defaultValue: .literal("\(defaults.connections.minimumBodyRate)"),
        summary: "bytes per second a request body must keep up after \(DurationText.option(defaults.connections.bodyRateGrace))",
        given: { $0.minBodyRate }, parse: ServeOptionValues.integer(variable: "STRATA_MIN_BODY_RATE"),
        apply: { value, setup in
            guard value >= 0 else { throw ValidationError("--min-body-rate must not be negative") }
            setup.configuration.connections.minimumBodyRate = value
        })

    static let maxConnections: ServeOption<Int> = ServeOption(
        flag: "max-connections", valueName: "N", variable: "STRATA_MAX_CONNECTIONS",
        defaultValue: .literal("\(defaults.connections.maxConnections)"),
        summary: "open connections at most; more wait until one closes",
        given: { $0.maxConnections }, parse: ServeOptionValues.integer(variable: "STRATA_MAX_CONNECTIONS"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--max-connections")
            setup.configuration.connections.maxConnections = value
        })

    static let trustedProxy: ServeOption<[String]> = ServeOption(
        flag: "trusted-proxy", valueName: "A", variable: "STRATA_TRUSTED_PROXIES", defaultValue: .none,
        summary: "a load balancer (address or CIDR block; repeatable, comma-separated in the environment) whose `X-Forwarded-For` names the client",
        given: { $0.trustedProxy.isEmpty ? nil : $0.trustedProxy }, parse: { $0.split(separator: ",").map(String.init) },
        apply: { entries, setup in
            do {
                setup.configuration.trustedProxies = try TrustedProxies(parsing: entries)
            } catch {
                throw ValidationError("\(error)")
            }
        })

    static let maxExpandedEntities: ServeOption<Int> = ServeOption(
        flag: "max-expanded-entities", valueName: "N", variable: "STRATA_MAX_EXPANDED_ENTITIES",
        defaultValue: .literal("\(defaults.maxExpandedEntities)"),
        summary: "entities `$expand` places inline in one response, every level counted; a page ends early with `__next` before passing it, and an entity that alone passes it gets 400",
        given: { $0.maxExpandedEntities }, parse: ServeOptionValues.integer(variable: "STRATA_MAX_EXPANDED_ENTITIES"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--max-expanded-entities")
            setup.configuration.maxExpandedEntities = value
        })

    static let maxBufferedResponse: ServeOption<Int> = ServeOption(
        flag: "max-buffered-response", valueName: "N", variable: "STRATA_MAX_BUFFERED_RESPONSE",
        defaultValue: .literal("\(defaults.maxBufferedResponse)"),
        summary: "bytes of an answer the server builds whole before sending it: a `$sql` result (past it, 400) and a `$batch`'s query answers together (past it, a 400 per further query)",
        given: { $0.maxBufferedResponse }, parse: ServeOptionValues.integer(variable: "STRATA_MAX_BUFFERED_RESPONSE"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1024, value, "--max-buffered-response", unit: " bytes")
            setup.configuration.maxBufferedResponse = value
        })

    static let metricsAccess: ServeOption<String> = ServeOption(
        flag: "metrics-access", valueName: "WHO", variable: "STRATA_METRICS_ACCESS", defaultValue: .literal(defaults.metricsAccess.rawValue),
        summary: "who may read `/metrics`: `admin` (accounts holding the `admin` or `metrics` role for every service; a scraper signs in with HTTP Basic as a `metrics` account) or `anonymous`",
        given: { $0.metricsAccess }, parse: { $0 },
        apply: { value, setup in
            guard let access = StrataConfiguration.MetricsAccess(rawValue: value.lowercased()) else {
                throw ValidationError("--metrics-access must be admin or anonymous, not \(value)")
            }
            setup.configuration.metricsAccess = access
        })

    static let shutdownGrace: ServeOption<String> = ServeOption(
        flag: "shutdown-grace", valueName: "T", variable: "STRATA_SHUTDOWN_GRACE", defaultValue: .literal(DurationText.option(defaults.shutdownGrace)),
        summary: "at SIGTERM, time for requests in flight before their statements stop",
        given: { $0.shutdownGrace }, parse: { $0 },
        apply: { text, setup in setup.configuration.shutdownGrace = try DurationText.parse(text, option: "--shutdown-grace") })

    static let changeRetention: ServeOption<String> = ServeOption(
        flag: "change-retention", valueName: "T", variable: "STRATA_CHANGE_RETENTION",
        defaultValue: .literal(DurationText.option(defaults.changeRetention)),
        summary: "how long a tracked service's change log keeps a change, and `$changes` keeps the receipts of idempotent change sets (`30d`, `12h`); older ones are pruned at start and hourly, and delta tokens older than this are gone",
        given: { $0.changeRetention }, parse: { $0 },
        apply: { text, setup in
            let retention = try DurationText.parse(text, option: "--change-retention")
            guard retention >= .seconds(60) else { throw ValidationError("--change-retention must be at least 1m, not \(text)") }
            setup.configuration.changeRetention = retention
        })
}
