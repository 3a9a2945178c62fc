import NIOCore
import NIOPosix

/// The thread pools for blocking work, one per kind of work.
///
/// NIO's singleton pool has as many threads as the machine has cores, and SQLite queries run on
/// it. Sharing it with work that can hold a thread much longer would stall every query of every
/// service behind that work: an `fsync` of a freshly uploaded blob takes seconds on a busy disk,
/// and two bcrypt checks at the default cost keep two threads for a quarter of a second each.
/// So blob file operations and password hashing get pools of their own.
package enum BlockingPools {
    /// Blob file operations: mostly waiting for the disk, so more threads than cores help.
    package static let files = started(threads: fileThreads)
    static let fileThreads = max(4, System.coreCount * 2)

    /// bcrypt: pure computation, so no more threads than cores.
    package static let passwords = started(threads: passwordThreads)
    static let passwordThreads = max(2, System.coreCount)

    /// Like NIO's singleton, these pools start on first use and live as long as the process.
    private static func started(threads: Int) -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }
}
