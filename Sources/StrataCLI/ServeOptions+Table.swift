import ArgumentParser
import Foundation
import Logging
import StrataCore
import StrataDemo
import StrataServer
import StrataStorage
import StrataIdentity

/// The table of `strata serve`'s options, in the order of `--help` and of docs/LIMITS.md.
extension ServeOptions {
    static let table: [any ServeOptionRow] = [
        demoOption, host, port, data, database, systemDatabase, databaseConnections, readReplica, maxReplicaLag, eventLoops, publicURL, pageSize, maxBodySize,
        maxBlobSize, logLevel, tokenLifetime, passwordHashCost, tokenAlgorithm, keySecretFile, keySecret, maxTop, maxQueryLength, maxFilterDepth, maxFilterNodes,
        maxExpandDepth, maxExpandWidth, maxExpandedEntities, statementTimeout, maxQueriesPerCaller, sqlCrossJoinLimit, maxBufferedResponse, headerTimeout,
        idleTimeout, sendTimeout, minBodyRate, maxConnections, trustedProxy, metricsAccess, shutdownGrace, changeRetention,
    ]

    /// The defaults shown are the configuration's own.
    static let defaults = StrataConfiguration()

    static let demoOption: ServeOption<Bool> = ServeOption(
        flag: "demo", variable: "STRATA_DEMO", defaultValue: .described("off"),
        summary: "create the demo services (`cardealer`, `speakeasy`, `hockey`), the `speakers` blob container and the `editor` account on first start; `1`, `true` or `yes` in the environment",
        given: { $0.demo ? true : nil }, parse: { ServeOptionValues.isOn($0) },
        apply: { value, setup in setup.configuration.demo = value })

    static let host: ServeOption<String> = ServeOption(
        flag: "host", variable: "STRATA_HOST", defaultValue: .literal(defaults.host),
        summary: "address to listen on",
        given: { $0.host }, parse: { $0 }, apply: { value, setup in setup.configuration.host = value })

    static let port: ServeOption<Int> = ServeOption(
        flag: "port", variable: "STRATA_PORT", defaultValue: .literal("\(defaults.port)"),
        summary: "port to listen on",
        given: { $0.port }, parse: ServeOptionValues.integer(variable: "STRATA_PORT"),
        apply: { value, setup in setup.configuration.port = value })

    static let data: ServeOption<String> = ServeOption(
        flag: "data", valueName: "DIR", variable: "STRATA_DATA", defaultValue: .literal(defaults.dataDirectory),
        summary: "SQLite services (`DIR/<service>.sqlite`), blob content on SQLite (`DIR/blobs`; on PostgreSQL it is in the database) and Strata's own data",
        given: { $0.data }, parse: { $0 }, apply: { value, setup in setup.configuration.dataDirectory = value })

    static let database: ServeOption<String> = ServeOption(
        flag: "database", valueName: "URL", variable: "STRATA_DATABASE", defaultValue: .none,
        summary: "a SQLite file served as one service, or `postgres://user:pass@host:5432/db` (each schema is a service); on the database's machine `postgres://user@/db?host=/var/run/postgresql` uses its Unix socket, as libpq's `host` does (`&port=N` picks `.s.PGSQL.N`); several hosts, `postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`, are tried in order for the one that accepts writes, again after a failover (docs/DEPLOYMENT.md)",
        given: { $0.database }, parse: { $0 },
        apply: { value, setup in
            do {
                setup.configuration.database = try DatabaseLocation.parse(value)
            } catch {
                throw ValidationError("\(error)")
            }
        })

    static let systemDatabase: ServeOption<String> = ServeOption(
        flag: "system-database", valueName: "URL", variable: "STRATA_SYSTEM_DATABASE", defaultValue: .described("beside the services"),
        summary: "where Strata keeps its own tables (accounts, grants, settings, blob names): a SQLite file, or `postgres://…` (schema `strata_system`); by default `DIR/strata_system.sqlite`, or the schema `strata_system` that Strata creates in the `--database` it serves",
        given: { $0.systemDatabase }, parse: { $0 },
        apply: { value, setup in
            do {
                setup.configuration.systemDatabase = try DatabaseLocation.parse(value, option: "--system-database")
            } catch {
                throw ValidationError("\(error)")
            }
        })

    static let databaseConnections: ServeOption<Int> = ServeOption(
        flag: "database-connections", valueName: "N", variable: "STRATA_DATABASE_CONNECTIONS",
        defaultValue: .literal("\(defaults.databaseConnections)"),
        summary: "PostgreSQL connections kept open (a fixed pool); requests beyond them wait up to \(DurationText.option(defaults.databaseConnectionWait)) for one, then get 503",
        given: { $0.databaseConnections }, parse: ServeOptionValues.integer(variable: "STRATA_DATABASE_CONNECTIONS"),
        apply: { value, setup in
            guard (1...1000).contains(value) else { throw ValidationError("--database-connections must be from 1 to 1000") }
            setup.configuration.databaseConnections = value
        })

    static let readReplica: ServeOption<[String]> = ServeOption(
        flag: "read-replica", valueName: "URL", variable: "STRATA_READ_REPLICA", defaultValue: .none,
        summary: "a PostgreSQL streaming standby of `--database` (`postgres://…`; repeatable, comma-separated in the environment): GET requests' reads go to standbys that have replayed what their caller has seen (`Strata-Position`), writes and sign-ins to the primary; each standby gets a pool of `--database-connections`",
        given: { $0.readReplica.isEmpty ? nil : $0.readReplica }, parse: { $0.split(separator: ",").map(String.init) },
        apply: { urls, setup in
            do {
                setup.configuration.readReplicas = try urls.map { try PostgresLocation(url: $0) }
            } catch {
                throw ValidationError("--read-replica: \(error)")
            }
        })

    static let maxReplicaLag: ServeOption<String> = ServeOption(
        flag: "max-replica-lag", valueName: "LAG", variable: "STRATA_MAX_REPLICA_LAG", defaultValue: .literal(defaults.maxReplicaLag.description),
        summary: "a standby further behind the primary than this serves no reads: a time (`500ms`, `5s`) since the primary passed what it has replayed, or log bytes (`16MB`)",
        given: { $0.maxReplicaLag }, parse: { $0 },
        apply: { text, setup in
            guard let limit = ReplicaLagLimit(text) else {
                throw ValidationError("--max-replica-lag must be a time such as 500ms, 5s or 1m, or a size such as 512kB, 16MB or 1GB, not \(text)")
            }
            setup.configuration.maxReplicaLag = limit
        })

    static let eventLoops: ServeOption<Int> = ServeOption(
        flag: "event-loops", valueName: "N", variable: "STRATA_EVENT_LOOPS", defaultValue: .described("one per core"),
        summary: "threads that read requests and write responses (NIO's event loops, \(EventLoopCount.range.lowerBound)–\(EventLoopCount.range.upperBound)); on a machine that serves nothing else, fewer can be faster (see benchmarks/README.md)",
        given: { $0.eventLoops }, parse: ServeOptionValues.integer(variable: "STRATA_EVENT_LOOPS"),
        apply: { value, setup in
            guard EventLoopCount.range.contains(value) else {
                throw ValidationError("--event-loops must be from \(EventLoopCount.range.lowerBound) to \(EventLoopCount.range.upperBound)")
            }
            setup.eventLoops = value
        })

    static let publicURL: ServeOption<String> = ServeOption(
        flag: "public-url", valueName: "URL", variable: "STRATA_PUBLIC_URL", defaultValue: .described("from `Host`"),
        summary: "the base of links in responses (`__metadata.uri`, `__next`)",
        given: { $0.publicURL }, parse: { $0 }, apply: { value, setup in setup.configuration.publicBaseURL = value })

    static let pageSize: ServeOption<Int> = ServeOption(
        flag: "page-size", valueName: "N", variable: "STRATA_PAGE_SIZE", defaultValue: .literal("\(defaults.pageSize)"),
        summary: "rows per response before a collection continues with `__next`",
        given: { $0.pageSize }, parse: ServeOptionValues.integer(variable: "STRATA_PAGE_SIZE"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--page-size")
            setup.configuration.pageSize = value
        })

    static let maxBodySize: ServeOption<Int> = ServeOption(
        flag: "max-body-size", valueName: "N", variable: "STRATA_MAX_BODY_SIZE", defaultValue: .literal("\(defaults.maxBodySize)"),
        summary: "largest request body accepted, in bytes (blobs excepted); larger ones get 413",
        given: { $0.maxBodySize }, parse: ServeOptionValues.integer(variable: "STRATA_MAX_BODY_SIZE"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--max-body-size")
            setup.configuration.maxBodySize = value
        })

    static let maxBlobSize: ServeOption<Int64> = ServeOption(
        flag: "max-blob-size", valueName: "N", variable: "STRATA_MAX_BLOB_SIZE", defaultValue: .literal("\(defaults.maxBlobSize)"),
        summary: "largest blob accepted, in bytes; larger uploads get 413",
        given: { $0.maxBlobSize }, parse: { Int64(try ServeOptionValues.integer($0, "STRATA_MAX_BLOB_SIZE")) },
        apply: { value, setup in
            guard value >= 0 else { throw ValidationError("--max-blob-size must not be negative") }
            setup.configuration.maxBlobSize = value
        })

    static let logLevel: ServeOption<String> = ServeOption(
        flag: "log-level", valueName: "L", variable: "STRATA_LOG_LEVEL", defaultValue: .literal(defaults.logLevel.rawValue),
        summary: "`trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`",
        given: { $0.logLevel }, parse: { $0 },
        apply: { value, setup in
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
            }
            setup.configuration.logLevel = level
        })

    static let tokenLifetime: ServeOption<Int> = ServeOption(
        flag: "token-lifetime", valueName: "MIN", variable: "STRATA_TOKEN_LIFETIME",
        defaultValue: .literal("\(Int(defaults.auth.accessTokenLifetime / 60))"),
        summary: "minutes an access token is valid",
        given: { $0.tokenLifetime }, parse: ServeOptionValues.integer(variable: "STRATA_TOKEN_LIFETIME"),
        apply: { value, setup in
            try ServeOptionValues.atLeast(1, value, "--token-lifetime", unit: " minute")
            setup.configuration.auth.accessTokenLifetime = TimeInterval(value * 60)
        })

    /// Environment only: also read by `strata user`, which hashes passwords too.
    static let passwordHashCost: ServeOption<String> = ServeOption(
        variable: "STRATA_PASSWORD_HASH_COST", defaultValue: .literal("\(defaults.auth.passwordHashCost)"),
        summary: "bcrypt cost of new passwords, 4 to 31 (also for `strata user`)",
        given: { _ in nil }, parse: { $0 },
        apply: { text, setup in
            guard let value = Int(text), (4...31).contains(value) else {
                throw ValidationError("STRATA_PASSWORD_HASH_COST must be a number from 4 to 31, not \(text)")
            }
            setup.configuration.auth.passwordHashCost = value
        })
}
