import NIOCore

/// How many NIO event loops `strata serve` runs (`--event-loops`): the loops of NIO's
/// process-wide `MultiThreadedEventLoopGroup.singleton`, which Hummingbird's server and
/// postgres-nio's connections use. Without the option, NIO's default: one per core.
///
/// Fewer loops can be faster on a machine that serves nothing else. A request's own work (parsing,
/// the SQLite call, serializing) runs on Swift's cooperative pool, one thread per core; the loops
/// only read requests and write responses. On two cores, one loop instead of two served GET by key
/// on SQLite with 15% less CPU per request and 12% more requests per second, POST 3% more, pages
/// and streams the same (A/B, issue 10's benchmarks); on PostgreSQL, whose connections share the
/// loops, one loop lost 5%. It is not the default: that was one machine, and two full test runs
/// with one loop in every server process failed on timeouts in blob-streaming tests (a 64 MiB
/// upload to a one-loop SQLite server took 12 s, to the PostgreSQL one beside it, on two loops, 3 s); the cause was
/// not pinned down, and the runs with one loop per core passed.
///
/// The count is process-wide and can be set only before the first use of that group, so the
/// command sets it before it builds the application (``apply(_:)``); a program embedding
/// ``buildApplication(_:logger:)`` sets `NIOSingletons.groupLoopCountSuggestion` itself.
public enum EventLoopCount {
    /// The counts `--event-loops` accepts.
    public static let range = 1...256

    /// Sets the process's loop count. Call it once, before anything uses NIO's singleton group:
    /// NIO stops the program if the count is set twice or after the group exists.
    public static func apply(_ count: Int) {
        precondition(range.contains(count), "event loop count \(count) outside \(range)")
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
