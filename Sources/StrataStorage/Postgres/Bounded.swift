import Synchronization

/// Waits for work at most so long; the work goes on in a task of its own if it takes longer.
///
/// For what must not hold its caller when a server stops answering: a cancel request sent over a
/// connection that a failover left hanging, say.
enum Bounded {
    static func wait(at most: Duration, _ work: @escaping @Sendable () async -> Void) async {
        let finished = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Whichever comes first resumes the continuation; the flag makes the other one do nothing.
            let resume: @Sendable () -> Void = {
                if finished.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            Task {
                await work()
                resume()
            }
            Task {
                try? await Task.sleep(for: most)
                resume()
            }
        }
    }
}
