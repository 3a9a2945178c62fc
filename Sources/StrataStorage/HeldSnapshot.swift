import Synchronization

/// One read-only snapshot on one connection, kept while a response streams, so that the reads a
/// response makes after its head went out see no newer data than the position the head carries.
///
/// A collection longer than one chunk is read chunk by chunk while its body streams, after the
/// `Strata-Position` header went out. Read anywhere else, its later chunks could hold rows newer than
/// that position, and the caller's next read — sent with it — could go to a standby that lacks a row
/// the caller saw (docs/DEPLOYMENT.md, *Standbys*). ``Database/holdSnapshot()`` opens one on a host
/// at or past what the response read so far and records its position for the head; every read of
/// the database while ``current`` is bound then runs in it, one at a time.
///
/// It costs a pooled connection (one of the caller's scans) for as long as the body streams, so it
/// ends at ``deadline`` whatever happens: reads after that fail with ``Expired``, and the collection
/// ends its page early (`__next`) where the client can follow one. It also ends when its owner lets
/// go of it (``Lease``), so a response whose body is never written does not keep the connection.
package final class HeldSnapshot: Sendable {
    /// The database whose reads it serves (other databases' reads, such as the system's, run as usual).
    package let owner: ObjectIdentifier
    /// When it ends.
    package let deadline: ContinuousClock.Instant

    /// A read on the held connection; nil tells it that the snapshot ended before it ran.
    package typealias Job = @Sendable ((any DatabaseConnection)?) async -> Void

    private struct State {
        var queue: [Job] = []
        var waiting: CheckedContinuation<Job?, Never>?
        var closed = false
    }

    private let state = Mutex(State())

    /// The snapshot ended (its deadline passed, its owner let go of it, or its connection failed)
    /// before a read could run in it.
    package struct Expired: Error, CustomStringConvertible {
        package init() {}
        package var description: String { "the response's snapshot was held for as long as it may be" }
    }

    package init(owner: ObjectIdentifier, deadline: ContinuousClock.Instant) {
        self.owner = owner
        self.deadline = deadline
    }

    /// Whether reads may still run in it.
    package var isOpen: Bool { !state.withLock { $0.closed } && ContinuousClock.now < deadline }

    /// Runs `body` on the held connection, after the reads asked for before it.
    package func run<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        guard ContinuousClock.now < deadline else { throw Expired() }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job: Job = { connection in
                guard let connection else { return continuation.resume(throwing: Expired()) }
                do {
                    continuation.resume(returning: try await body(connection))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            let refused = state.withLock { state -> Bool in
                if state.closed { return true }
                if let waiting = state.waiting {
                    state.waiting = nil
                    waiting.resume(returning: job)
                } else {
                    state.queue.append(job)
                }
                return false
            }
            if refused { continuation.resume(throwing: Expired()) }
        }
    }

    /// The connection's side: the next read to run, or nil once the snapshot is closed (the
    /// connection then ends its transaction and goes back to the pool).
    package func next() async -> Job? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Job?, Never>) in
            state.withLock { state in
                if !state.queue.isEmpty {
                    continuation.resume(returning: state.queue.removeFirst())
                } else if state.closed {
                    continuation.resume(returning: nil)
                } else {
                    state.waiting = continuation
                }
            }
        }
    }

    /// No more reads: the one running finishes, those waiting fail with ``Expired``.
    package func close() {
        let (waiting, queued) = state.withLock { state in
            state.closed = true
            defer { state.waiting = nil; state.queue = [] }
            return (state.waiting, state.queue)
        }
        waiting?.resume(returning: nil)
        // Outside the lock: each resumes its reader's continuation.
        if !queued.isEmpty { Task { for job in queued { await job(nil) } } }
    }

    /// Holds a snapshot for as long as it is referenced: the snapshot closes when the last reference
    /// goes, so a response dropped unwritten (a client that went away) frees its connection.
    package final class Lease: Sendable {
        package let snapshot: HeldSnapshot

        package init(_ snapshot: HeldSnapshot) {
            self.snapshot = snapshot
        }

        deinit { snapshot.close() }
    }

    /// The snapshot the reads of this task run in, when a streamed response holds one.
    @TaskLocal package static var current: HeldSnapshot?
}
