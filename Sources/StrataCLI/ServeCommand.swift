import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrataServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every table of a database as an OData entity set.",
        discussion: """
            Each service is one database namespace: a SQLite file in the data directory \
            (strata-data/cardealer.sqlite is the service /cardealer/), or a schema of the PostgreSQL \
            database given with --database. Every option can also be set with an environment variable \
            (STRATA_HOST, STRATA_PORT, STRATA_DATA, STRATA_DATABASE, STRATA_PUBLIC_URL, STRATA_PAGE_SIZE, \
            STRATA_MAX_BODY_SIZE, STRATA_MAX_BLOB_SIZE, STRATA_DATABASE_CONNECTIONS, STRATA_EVENT_LOOPS, STRATA_LOG_LEVEL, STRATA_TOKEN_LIFETIME, STRATA_PASSWORD_HASH_COST, STRATA_DEMO=1); \
            options win over the environment. With --demo, the first start creates the account `editor` \
            and prints its password once on standard output.
            """)

    @Flag(help: "Create the demo services (cardealer, speakeasy, hockey) and the speakers blob container on first start.")
    var demo = false

    @Option(help: "The address to listen on. (env: STRATA_HOST, default: 127.0.0.1)")
    var host: String?

    @Option(help: "The port to listen on. (env: STRATA_PORT, default: 8080)")
    var port: Int?

    @OptionGroup var storage: StorageOptions

    @Option(name: .customLong("token-lifetime"), help: "Minutes an access token stays valid. (env: STRATA_TOKEN_LIFETIME, default: 120)")
    var tokenLifetime: Int?

    @Option(name: .customLong("public-url"), help: "The URL clients reach the server at, for links in responses. (env: STRATA_PUBLIC_URL)")
    var publicURL: String?

    @Option(name: .customLong("page-size"), help: "Rows per response before a collection continues with __next. (env: STRATA_PAGE_SIZE, default: 1000)")
    var pageSize: Int?

    @Option(name: .customLong("max-body-size"), help: "The largest request body accepted, in bytes; larger ones are refused with 413. (env: STRATA_MAX_BODY_SIZE, default: 16777216)")
    var maxBodySize: Int?

    @Option(name: .customLong("max-blob-size"), help: "The largest blob accepted, in bytes; larger uploads are refused with 413. (env: STRATA_MAX_BLOB_SIZE, default: 1073741824)")
    var maxBlobSize: Int64?

    @Option(name: .customLong("database-connections"), help: "PostgreSQL connections to keep open (a fixed pool; requests beyond it wait for one). (env: STRATA_DATABASE_CONNECTIONS, default: 10)")
    var databaseConnections: Int?

    @Option(name: .customLong("event-loops"), help: "Threads that read requests and write responses. (env: STRATA_EVENT_LOOPS, default: one per core)")
    var eventLoops: Int?

    @Option(name: .customLong("trusted-proxy"), help: "A load balancer's address or CIDR block whose X-Forwarded-For names the client (repeatable). (env: STRATA_TRUSTED_PROXIES, comma-separated)")
    var trustedProxies: [String] = []

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. (env: STRATA_LOG_LEVEL, default: info)")
    var logLevel: String?

    @OptionGroup(title: "Query limits") var limits: QueryLimitOptions

    @OptionGroup(title: "Time and connection limits") var timeLimits: TimeLimitOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = StrataConfiguration()
        configuration.demo = demo || ["1", "true", "yes"].contains(environment["STRATA_DEMO"]?.lowercased() ?? "")
        configuration.host = host ?? environment["STRATA_HOST"] ?? configuration.host
        configuration.port = try port ?? environment["STRATA_PORT"].map { try Self.integer($0, "STRATA_PORT") } ?? configuration.port
        try storage.apply(to: &configuration)
        if let minutes = try tokenLifetime ?? environment["STRATA_TOKEN_LIFETIME"].map({ try Self.integer($0, "STRATA_TOKEN_LIFETIME") }) {
            guard minutes > 0 else { throw ValidationError("--token-lifetime must be at least 1 minute") }
            configuration.auth.accessTokenLifetime = TimeInterval(minutes * 60)
        }
        configuration.publicBaseURL = publicURL ?? environment["STRATA_PUBLIC_URL"]
        configuration.pageSize = try pageSize ?? environment["STRATA_PAGE_SIZE"].map { try Self.integer($0, "STRATA_PAGE_SIZE") } ?? configuration.pageSize
        guard configuration.pageSize > 0 else { throw ValidationError("--page-size must be at least 1") }
        configuration.maxBodySize = try maxBodySize ?? environment["STRATA_MAX_BODY_SIZE"].map { try Self.integer($0, "STRATA_MAX_BODY_SIZE") } ?? configuration.maxBodySize
        guard configuration.maxBodySize > 0 else { throw ValidationError("--max-body-size must be at least 1") }
        try limits.apply(to: &configuration)
        try timeLimits.apply(to: &configuration)
        let proxies = trustedProxies.isEmpty
            ? (environment["STRATA_TRUSTED_PROXIES"]?.split(separator: ",").map(String.init) ?? []) : trustedProxies
        do {
            configuration.trustedProxies = try TrustedProxies(parsing: proxies)
        } catch {
            throw ValidationError("\(error)")
        }
        if let size = try maxBlobSize ?? environment["STRATA_MAX_BLOB_SIZE"].map({ Int64(try Self.integer($0, "STRATA_MAX_BLOB_SIZE")) }) {
            guard size >= 0 else { throw ValidationError("--max-blob-size must not be negative") }
            configuration.maxBlobSize = size
        }
        if let connections = try databaseConnections ?? environment["STRATA_DATABASE_CONNECTIONS"].map({ try Self.integer($0, "STRATA_DATABASE_CONNECTIONS") }) {
            guard (1...1000).contains(connections) else { throw ValidationError("--database-connections must be from 1 to 1000") }
            configuration.databaseConnections = connections
        }
        if let level = logLevel ?? environment["STRATA_LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
            }
            configuration.logLevel = parsed
        }
        let loops = try eventLoops ?? environment["STRATA_EVENT_LOOPS"].map { try Self.integer($0, "STRATA_EVENT_LOOPS") }
        if let loops {
            guard EventLoopCount.range.contains(loops) else {
                throw ValidationError("--event-loops must be from \(EventLoopCount.range.lowerBound) to \(EventLoopCount.range.upperBound)")
            }
            EventLoopCount.apply(loops)
        }
        try await runServer(configuration)
    }

    static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text) else { throw ValidationError("\(name) must be a number, not \(text)") }
        return value
    }
}
