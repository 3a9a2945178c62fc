import Foundation

/// Reports, on standard error, when this test process's async code could not run for seconds.
///
/// CI runs of the whole suite on two cores have failed on wall-clock bounds after unexplained
/// pauses of 17–20 s (a task's one-second sleep, the Hummingbird test client's 20 s read timeout).
/// A thread of its own (not the cooperative pool) asks the pool to run a trivial job every 250 ms
/// and notes how long it took to start, and how late its own wake-up was: a late job with a
/// punctual thread means the cooperative threads were all blocked (synchronous work on them); both
/// late means the whole machine stalled (disk or CPU). One line per pause of 3 s or more, so that
/// the next such failure says which.
enum StallWatch {
    /// Starts the watch once per process; later calls do nothing.
    static func start() { _ = started }

    private static let started: Bool = {
        let thread = Thread { watch() }
        thread.name = "strata-test-stall-watch"
        thread.start()
        return true
    }()

    private static let threshold = 3.0

    private static func watch() {
        let interval = 0.25
        while true {
            let asked = Date()
            let ran = DispatchSemaphore(value: 0)
            Task.detached { ran.signal() }
            var waited = 0.0
            var threadLate = 0.0
            // Keeps noting the thread's own punctuality while it waits, so a long wait says which it was.
            var dumped = false
            while ran.wait(timeout: .now() + interval) == .timedOut {
                let expected = waited + interval
                waited = Date().timeIntervalSince(asked)
                threadLate = max(threadLate, waited - expected)
                if waited >= threshold, !dumped, let directory = stackDirectory {
                    dumped = true
                    dumpStacks(into: directory, at: asked)
                }
            }
            waited = Date().timeIntervalSince(asked)
            if waited >= threshold {
                let stamp = ISO8601DateFormatter().string(from: asked)
                FileHandle.standardError.write(Data("""
                    stall watch: the cooperative pool started a job \(String(format: "%.1f", waited)) s after it was asked \
                    (at \(stamp)); this thread's own wake-ups were at most \(String(format: "%.1f", threadLate)) s late\n
                    """.utf8))
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }

    /// `STRATA_TEST_STALL_STACKS=DIR`: on a stall, every thread's stack (gdb) goes to a file in DIR,
    /// to find what holds the cooperative threads. For investigation; gdb stops the process for a moment.
    private static let stackDirectory = ProcessInfo.processInfo.environment["STRATA_TEST_STALL_STACKS"]

    private static func dumpStacks(into directory: String, at asked: Date) {
        let file = "\(directory)/stall-\(Int(asked.timeIntervalSince1970)).txt"
        let result = try? ChildProcess.run("gdb", ["-batch", "-p", String(getpid()), "-ex", "thread apply all bt 30"]) as ChildProcess.Result
        try? Data((result?.output ?? "gdb did not run").utf8).write(to: URL(fileURLWithPath: file))
        FileHandle.standardError.write(Data("stall watch: stacks in \(file)\n".utf8))
    }
}
