import ArgumentParser
import Foundation
import StrataCore
import StrataServer

/// `strata serve`'s bounds on what one request's query options may ask for; past each, a 400
/// that names the limit.
struct QueryLimitOptions: ParsableArguments {
    @Option(name: .customLong("max-top"), help: "The largest $top a client may ask for. (env: STRATA_MAX_TOP, default: 10000)")
    var maxTop: Int?

    @Option(name: .customLong("max-query-length"), help: "The longest query string accepted, in bytes. (env: STRATA_MAX_QUERY_LENGTH, default: 8192)")
    var maxQueryLength: Int?

    @Option(name: .customLong("max-filter-depth"), help: "How deeply a $filter may nest. (env: STRATA_MAX_FILTER_DEPTH, default: 50)")
    var maxFilterDepth: Int?

    @Option(name: .customLong("max-filter-nodes"), help: "How many operands and operators a $filter may have. (env: STRATA_MAX_FILTER_NODES, default: 500)")
    var maxFilterNodes: Int?

    @Option(name: .customLong("max-expand-depth"), help: "How many navigation steps one $expand path may chain. (env: STRATA_MAX_EXPAND_DEPTH, default: 5)")
    var maxExpandDepth: Int?

    @Option(name: .customLong("max-expand-width"), help: "How many paths one $expand may list. (env: STRATA_MAX_EXPAND_WIDTH, default: 20)")
    var maxExpandWidth: Int?

    @Option(name: .customLong("max-queries-per-caller"), help: "Queries reading many rows (collections, $count, $expand, $sql, $tables) one account or client address runs at once; more wait, and past sixteen times as many waiting get 429. (env: STRATA_MAX_QUERIES_PER_CALLER, default: 4)")
    var maxQueriesPerCaller: Int?

    @Option(name: .customLong("sql-cross-join-limit"), help: "The most row combinations a $sql query may build from tables it does not join on equal columns. (env: STRATA_SQL_CROSS_JOIN_LIMIT, default: 1000000)")
    var sqlCrossJoinLimit: Int?

    /// Applies the per-caller and cross-join limits, or their environment variables.
    func apply(to configuration: inout StrataConfiguration) throws {
        try apply(to: &configuration.queryLimits)
        let environment = ProcessInfo.processInfo.environment
        if let count = try maxQueriesPerCaller ?? environment["STRATA_MAX_QUERIES_PER_CALLER"].map({ try ServeCommand.integer($0, "STRATA_MAX_QUERIES_PER_CALLER") }) {
            guard count >= 1 else { throw ValidationError("--max-queries-per-caller must be at least 1") }
            configuration.maxQueriesPerCaller = count
        }
        if let rows = try sqlCrossJoinLimit ?? environment["STRATA_SQL_CROSS_JOIN_LIMIT"].map({ try ServeCommand.integer($0, "STRATA_SQL_CROSS_JOIN_LIMIT") }) {
            guard rows >= 1 else { throw ValidationError("--sql-cross-join-limit must be at least 1") }
            configuration.sqlCrossJoinLimit = rows
        }
    }

    /// Applies the options, or their environment variables, to `limits`.
    func apply(to limits: inout QueryLimits) throws {
        let settings: [(Int?, String, String, WritableKeyPath<QueryLimits, Int>)] = [
            (maxTop, "--max-top", "STRATA_MAX_TOP", \.maxTop),
            (maxQueryLength, "--max-query-length", "STRATA_MAX_QUERY_LENGTH", \.maxQueryStringLength),
            (maxFilterDepth, "--max-filter-depth", "STRATA_MAX_FILTER_DEPTH", \.maxFilterDepth),
            (maxFilterNodes, "--max-filter-nodes", "STRATA_MAX_FILTER_NODES", \.maxFilterNodes),
            (maxExpandDepth, "--max-expand-depth", "STRATA_MAX_EXPAND_DEPTH", \.maxExpandDepth),
            (maxExpandWidth, "--max-expand-width", "STRATA_MAX_EXPAND_WIDTH", \.maxExpandWidth),
        ]
        let environment = ProcessInfo.processInfo.environment
        for (option, flag, variable, path) in settings {
            guard let value = try option ?? environment[variable].map({ try ServeCommand.integer($0, variable) }) else { continue }
            guard value > 0 else { throw ValidationError("\(flag) must be at least 1") }
            limits[keyPath: path] = value
        }
    }
}
