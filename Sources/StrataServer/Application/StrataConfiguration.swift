import Foundation
import Logging
import StrataCore

/// Everything `strata serve` can be told; the CLI fills it from options and `STRATA_*` variables.
public struct StrataConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Directory for SQLite service files and the system database (`./strata-data`).
    public var dataDirectory: String
    /// Where services live; nil means one SQLite file per service in ``dataDirectory``.
    public var database: DatabaseLocation?
    /// What the server creates in its data when it starts, before it reads the catalogs, in order:
    /// the demo (`strata serve --demo`, from StrataDemo) or nothing.
    package var provisioners: [any StartupProvisioner] = []
    /// The scheme, host and port clients use to reach the server (`https://api.example.com`), for links
    /// in responses. When nil, links are built from each request's Host header.
    public var publicBaseURL: String?
    /// Rows per response before a collection continues with `__next` (server-driven paging).
    public var pageSize: Int
    /// How long a request waits for a PostgreSQL connection before the database counts as unreachable (503).
    public var databaseConnectionWait: Duration = .seconds(10)
    /// How many PostgreSQL connections the server keeps open: a fixed pool, opened at start.
    /// Requests beyond it wait for a free connection (up to ``databaseConnectionWait``).
    public var databaseConnections: Int = 10
    /// Limits on query options (`$filter` size and depth, `$expand` depth and width, `$top`, URL length).
    public var queryLimits: QueryLimits
    /// The largest request body accepted, in bytes (a `$batch` counts as one body); larger ones get 413.
    public var maxBodySize: Int
    /// The most rows one `$sql` query may answer; a query that would return more is refused with a
    /// 400 asking for `LIMIT` (its rows are collected before they are written, unlike `$tables`).
    public var sqlRowLimit: Int
    /// The most row combinations a `$sql` query may build from tables it does not join on equal
    /// columns (a cross join); more is refused with a 400 before the query runs.
    public var sqlCrossJoinLimit = 1_000_000
    /// The largest blob accepted, in bytes (1 GiB by default); larger uploads get 413. Blobs are
    /// streamed to disk, so this limits disk use per blob, not memory.
    public var maxBlobSize: Int64 = 1 << 30
    /// The longest one SQL statement may run, enforced inside the database; a statement stopped by
    /// it answers 400 `StatementTimeout`. A service's own setting wins (`strata service set
    /// --statement-timeout`). nil: no limit.
    public var statementTimeout: Duration? = .seconds(10)
    /// How many queries that read many rows (collections, `$count`, `$expand`, `$sql`, `$tables`) one
    /// caller — an account, or a client address when anonymous — runs at once; more wait behind
    /// them, and past sixteen times as many waiting they are refused with 429.
    public var maxQueriesPerCaller = 4
    /// Proxies (load balancers) whose `X-Forwarded-For` names the client (`--trusted-proxy`), for
    /// sign-in throttling and the per-caller share of queries; kept with the auth settings.
    public var trustedProxies: TrustedProxies {
        get { auth.trustedProxies }
        set { auth.trustedProxies = newValue }
    }
    /// Timeouts for slow or silent clients, and the most connections open at once.
    public var connections = ConnectionLimits()
    /// At shutdown (SIGTERM, SIGINT), how long requests in flight may take to finish before their
    /// statements are stopped; the process exits at most a few seconds later.
    public var shutdownGrace: Duration = .seconds(10)
    public var logLevel: Logger.Level
    /// Accounts, tokens and throttling.
    public var auth = AuthSettings()

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: String = "./strata-data",
        database: DatabaseLocation? = nil,
        publicBaseURL: String? = nil,
        pageSize: Int = 1000,
        queryLimits: QueryLimits = .default,
        maxBodySize: Int = 16 * 1024 * 1024,
        sqlRowLimit: Int = 10_000,
        logLevel: Logger.Level = .info
    ) {
        self.sqlRowLimit = sqlRowLimit
        self.queryLimits = queryLimits
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.database = database
        self.publicBaseURL = publicBaseURL
        self.pageSize = pageSize
        self.maxBodySize = maxBodySize
        self.logLevel = logLevel
    }
}

/// Where the services' data lives.
public enum DatabaseLocation: Sendable, Equatable {
    /// One SQLite file served as a single service.
    case sqliteFile(path: String)
    /// A PostgreSQL database; each schema is a service.
    case postgres(PostgresLocation)

    /// Reads `--database`: a `postgres://user:pass@host:port/db` URL, or a path to a SQLite file.
    public static func parse(_ text: String) throws -> DatabaseLocation {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            return .postgres(try PostgresLocation(url: text))
        }
        if text.contains("://") {
            throw ConfigurationError("--database must be a SQLite file path or a postgres:// URL, not \(Self.redacted(text))")
        }
        return .sqliteFile(path: text)
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "<database URL>"
    }
}

/// Connection settings for PostgreSQL, parsed from a `postgres://` URL.
///
/// As in libpq, a host that starts with `/` is the directory of the server's Unix-domain socket
/// (`<directory>/.s.PGSQL.<port>`): `postgres://user@/db?host=/var/run/postgresql`, for servers on
/// the same machine that listen only on their socket or admit local users by peer authentication.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    /// `disable`, `prefer` or `require` as in libpq's `sslmode`; loopback hosts and sockets default to `disable`.
    public var sslMode: String

    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil, sslMode: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        let local = Self.isSocketDirectory(host) || ["127.0.0.1", "localhost", "::1"].contains(host)
        self.sslMode = sslMode ?? (local ? "disable" : "prefer")
    }

    public init(url: String) throws {
        let example = "write postgres://user:password@host:5432/database, or postgres://user@/database?host=/socket/directory"
        guard let components = URLComponents(string: url) else {
            throw ConfigurationError("cannot read the PostgreSQL URL \(DatabaseLocation.redacted(url)); \(example)")
        }
        let parameters = components.queryItems ?? []
        func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.value }
        // libpq's `host` parameter overrides the URL's host; a percent-encoded `/…` host is a socket directory too.
        guard let host = parameter("host") ?? components.percentEncodedHost.map({ $0.removingPercentEncoding ?? $0 }),
              !host.isEmpty else {
            throw ConfigurationError("the PostgreSQL URL \(DatabaseLocation.redacted(url)) names no host; \(example)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ConfigurationError("the PostgreSQL URL \(DatabaseLocation.redacted(url)) names no user; \(example)")
        }
        var port = components.port ?? 5432
        if let text = parameter("port") {
            guard let value = Int(text), (1...65535).contains(value) else {
                throw ConfigurationError("port must be a number from 1 to 65535, not \(text)")
            }
            port = value
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let sslMode = parameter("sslmode")
        if let sslMode, !["disable", "prefer", "require"].contains(sslMode) {
            throw ConfigurationError("sslmode must be disable, prefer or require, not \(sslMode)")
        }
        // `prefer` is met by a plain connection; `require` cannot be, as a socket has no TLS here.
        if Self.isSocketDirectory(host), sslMode == "require" {
            throw ConfigurationError("sslmode=require cannot apply to the Unix socket in \(host); a socket connection is not encrypted")
        }
        self.init(host: host, port: port, username: user.removingPercentEncoding ?? user,
                  password: components.password.map { $0.removingPercentEncoding ?? $0 },
                  database: database.isEmpty ? nil : database, sslMode: sslMode)
    }

    /// Whether a host names the directory of a Unix-domain socket rather than a machine (libpq's rule).
    static func isSocketDirectory(_ host: String) -> Bool {
        host.hasPrefix("/")
    }

    /// The path of the server's Unix-domain socket when ``host`` is a socket directory, else nil.
    public var socketPath: String? {
        guard Self.isSocketDirectory(host) else { return nil }
        return (host.hasSuffix("/") ? String(host.dropLast()) : host) + "/.s.PGSQL.\(port)"
    }

    /// Never prints the password.
    public var description: String {
        if Self.isSocketDirectory(host) {
            return "postgres://\(username)@/\(database ?? "")?host=\(host)" + (port == 5432 ? "" : "&port=\(port)")
        }
        return "postgres://\(username)@\(host):\(port)/\(database ?? "")"
    }
}

public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
