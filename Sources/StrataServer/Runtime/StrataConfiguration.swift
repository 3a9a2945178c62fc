import Foundation
import Logging
import StrataCore
import StrataIdentity
import StrataStorage

/// Everything `strata serve` can be told; the CLI fills it from options and `STRATA_*` variables.
public struct StrataConfiguration: Sendable {
    /// Who may read `/metrics` (``StrataConfiguration/metricsAccess``).
    public enum MetricsAccess: String, Sendable, CaseIterable {
        /// Accounts holding the `admin` or the `metrics` role for every service. A scraper such as
        /// Prometheus signs in with HTTP Basic as an account holding only `metrics`, which reads
        /// no data.
        case admin
        /// Anyone who reaches the server.
        case anonymous

        /// The role, besides `admin`, that may read `/metrics`.
        public static let role = "metrics"
    }

    public var host: String
    public var port: Int
    /// Directory for SQLite service files and the system database (`./strata-data`).
    public var dataDirectory: String
    /// Where services live; nil means one SQLite file per service in ``dataDirectory``.
    public var database: DatabaseLocation?
    /// Where Strata's own tables (accounts, grants, service settings, blob names) live: a SQLite file,
    /// or a PostgreSQL database (in its schema `strata_system`). nil keeps them beside the services:
    /// `strata_system.sqlite` in ``dataDirectory``, or the schema `strata_system` of ``database``,
    /// which a read-only role serving someone else's database cannot create.
    public var systemDatabase: DatabaseLocation?
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
    /// PostgreSQL streaming standbys the services' reads go to (`--read-replica`), each with a pool of
    /// ``databaseConnections``. Reads of GET requests go to a standby that has replayed what their
    /// caller has seen (`Strata-Position`); writes, sign-ins and Strata's own tables stay on the primary.
    public var readReplicas: [PostgresLocation] = []
    /// How far behind the primary a standby may be and still serve reads (`--max-replica-lag`).
    package var maxReplicaLag: ReplicaLagLimit = .time(.seconds(5))
    /// Limits on query options (`$filter` size and depth, `$expand` depth and width, `$top`, URL length).
    /// `package`, as the parser's limits are: the command line's options set them.
    package var queryLimits: QueryLimits = .default
    /// The largest request body accepted, in bytes (a `$batch` counts as one body); larger ones get 413.
    public var maxBodySize: Int
    /// The most rows one `$sql` query may answer; a query that would return more is refused with a
    /// 400 asking for `LIMIT` (its rows are collected before they are written, unlike `$tables`).
    public var sqlRowLimit: Int
    /// The most row combinations a `$sql` query may build from tables it does not join on equal
    /// columns (a cross join); more is refused with a 400 before the query runs.
    public var sqlCrossJoinLimit = 1_000_000
    /// The most entities `$expand` places inline in one response, at every level together (a Car
    /// written under each of its PersonCar rows counts each time). A collection's page ends early
    /// with `__next` where the next entity would pass it; an entity that alone passes it is a 400
    /// that says how to ask for less. Bounds what one request can make the server read and write
    /// (a deep `$expand` over shared entities once answered 456 MB).
    public var maxExpandedEntities = 20_000
    /// The most bytes of a response the server builds whole before sending it: the rows a `$sql`
    /// query reads (past it, a 400 asking for fewer rows or columns) and the answers of a `$batch`'s
    /// queries together (past it, each further query is answered with a 400 of its own). Streamed
    /// collections and `$tables` are not built whole and need no such bound.
    public var maxBufferedResponse = 16 * 1024 * 1024
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
    /// How long a tracked service's change log keeps a change (docs/design/CHANGE-FEED.md §1): the
    /// pruner deletes older ones at start and every hour. A delta token older than this is gone.
    public var changeRetention: Duration = .seconds(30 * 86_400)
    /// How often the pruner runs (besides once at start).
    public var changePruneInterval: Duration = .seconds(3600)
    /// On a PostgreSQL system database, how long the server waits before opening its connection that
    /// listens for other servers' changes again, once it is lost; the pause doubles with each failed
    /// attempt, up to 30 s. Meanwhile the caches fall back to ``AuthSettings/cacheMaxAge``.
    public var changeListenerRetry: Duration = .milliseconds(500)
    public var logLevel: Logger.Level
    /// Who may read `/metrics`: by default accounts holding the `admin` or `metrics` role for every
    /// service (the request counts by route and status, latencies and statement counts it shows are
    /// the operator's, not every caller's); ``MetricsAccess/anonymous`` where only a private network
    /// reaches the server.
    public var metricsAccess: MetricsAccess = .admin
    /// Accounts, tokens and throttling.
    public var auth = AuthSettings()

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: String = "./strata-data",
        database: DatabaseLocation? = nil,
        publicBaseURL: String? = nil,
        pageSize: Int = 1000,
        maxBodySize: Int = 16 * 1024 * 1024,
        sqlRowLimit: Int = 10_000,
        logLevel: Logger.Level = .info
    ) {
        self.sqlRowLimit = sqlRowLimit
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
