import NIOCore

/// How many NIO event loops `strata serve` runs: the loops of NIO's process-wide
/// `MultiThreadedEventLoopGroup.singleton`, which Hummingbird's server and postgres-nio's
/// connections use.
///
/// The count is process-wide and can be set only before the first use of that group, so the
/// command sets it before it builds the application (``apply(_:)``); a program embedding
/// ``buildApplication(_:logger:)`` sets `NIOSingletons.groupLoopCountSuggestion` itself, or leaves
/// NIO's default of one loop per core.
public enum EventLoopCount {
    /// The counts `--event-loops` accepts.
    public static let range = 1...256

    /// The environment variable NIO reads for the same setting; when it is set, the automatic
    /// count gives way to it.
    public static let nioEnvironmentVariable = "NIO_SINGLETON_GROUP_LOOP_COUNT"

    /// One loop for every two cores on SQLite, one per core on PostgreSQL.
    ///
    /// A request's own work (parsing its URL, the SQLite call, serializing the answer) runs on
    /// Swift's cooperative pool, which has one thread per core; the event loops only read requests
    /// and write responses. With a loop per core as well, twice as many busy threads as cores take
    /// turns, and the loops, often idle, have to be woken for each response. On two cores, one loop
    /// instead of two served GET by key with 15% less CPU per request and 12% more requests per
    /// second (A/B, issue 10's benchmarks; the HTTP stack alone gains about as much), POST 3% more,
    /// pages and streams the same. On
    /// PostgreSQL the loops also carry every query and its rows, and a single loop lost 5% of GET
    /// by key's throughput, so PostgreSQL keeps one per core.
    public static func automatic(for database: DatabaseLocation?, cores: Int) -> Int {
        switch database {
        case .postgres: return max(1, cores)
        case nil, .sqliteFile: return max(1, cores / 2)
        }
    }

    /// ``automatic(for:cores:)`` with the cores this process may use (NIO's count, which honours
    /// a container's CPU limit).
    public static func automatic(for database: DatabaseLocation?) -> Int {
        automatic(for: database, cores: System.coreCount)
    }

    /// Sets the process's loop count. Call it once, before anything uses NIO's singleton group:
    /// NIO stops the program if the count is set twice or after the group exists.
    public static func apply(_ count: Int) {
        precondition(range.contains(count), "event loop count \(count) outside \(range)")
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
