import NIOCore
import NIOPosix

/// The thread a SQLite database's write transactions run on.
///
/// Writes to one database take turns on its single writer connection. On Swift's cooperative pool,
/// every hand-over of that connection queued the next writer's job behind whatever else the pool
/// had to run (other requests' parsing and serializing), and the connection sat idle meanwhile:
/// POST was bound by that wait, with a third of the CPU unused. On a thread that runs nothing but
/// write transactions, the next writer's job is the next one to run. On two cores (issue 10's
/// benchmarks, the runs before and after) POST went from 6,283 to 8,545 requests/s, and from 203 to
/// 143 µs of CPU each.
///
/// The threads are the event loops of one process-wide group, one per core, which the databases
/// share round-robin; like NIO's singletons, the group lives as long as the process. A transaction
/// hops to its database's loop when it starts and back when it ends; statements that may run long
/// still go to the thread pool (``SQLiteSession``), so the loop is never held by one of them.
final class SQLiteWriterExecutor: TaskExecutor {
    private static let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    private let loop: any EventLoop

    init() {
        loop = Self.group.next()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool { loop.inEventLoop }
}
