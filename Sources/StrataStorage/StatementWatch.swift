import NIOCore
import NIOPosix
import Synchronization

/// Watches the statements that may run long, a few times a second, and stops each one that has run
/// past its deadline, whose request was abandoned (its client hung up, its task was cancelled), or
/// whose server is shutting down (see ``StatementLimits``).
///
/// One ticker for all of them instead of a timer and signal registrations per statement: arming a
/// timer on an event loop from another thread wakes that loop, and a page of 100 rows paid for it
/// (about 10% of its CPU, measured A/B). A stop is repeated at every tick while the statement runs,
/// since a database may miss a stop that comes before the statement has really started (SQLite
/// forgets an interrupt that lands before a statement's first step). A statement is therefore
/// stopped within ``resolution`` of its cause.
final class StatementWatch: Sendable {
    static let shared = StatementWatch()
    static let resolution: Duration = .milliseconds(50)

    /// Why a statement was stopped early, for the error it fails with.
    enum Cause: Sendable {
        case deadline(Duration)
        case signal(InterruptSignal.Reason)
    }

    private struct Watched {
        var deadline: ContinuousClock.Instant?
        var timeout: Duration
        var abandonment: InterruptSignal?
        var shutdown: InterruptSignal?
        /// Set when the statement's task was cancelled.
        var cancelled = false
        /// Stops the statement; called again at every tick until it is unwatched.
        var stop: @Sendable (Cause) -> Void
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var next = 0
        var ticker: RepeatedTask?
    }

    private let state = Mutex(State())

    /// Runs `body` watched: stopped (through `stop`) at `limits`' timeout when `timesOut`, when its
    /// request is abandoned or its task cancelled, and when the server shuts down.
    func run<T>(_ limits: StatementLimits, timesOut: Bool, stop: @escaping @Sendable (Cause) -> Void,
                _ body: () async throws -> T) async throws -> T {
        let entry = Watched(deadline: timesOut ? limits.timeout.map { ContinuousClock.now + $0 } : nil,
                            timeout: limits.timeout ?? .zero, abandonment: limits.connection.flatMap(ConnectionSignals.shared.signal(for:)),
                            shutdown: limits.shutdown, stop: stop)
        let token = watch(entry)
        defer { unwatch(token) }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            self.cancel(token)
        }
    }

    private func watch(_ entry: Watched) -> Int {
        state.withLock { state in
            state.next += 1
            state.watched[state.next] = entry
            if state.ticker == nil {
                state.ticker = MultiThreadedEventLoopGroup.singleton.next().scheduleRepeatedTask(
                    initialDelay: TimeAmount(Self.resolution), delay: TimeAmount(Self.resolution)
                ) { [weak self] task in
                    self?.tick(task)
                }
            }
            return state.next
        }
    }

    private func unwatch(_ token: Int) {
        _ = state.withLock { $0.watched.removeValue(forKey: token) }
    }

    private func cancel(_ token: Int) {
        let stop = state.withLock { state -> (@Sendable (Cause) -> Void)? in
            state.watched[token]?.cancelled = true
            return state.watched[token]?.stop
        }
        stop?(.signal(.abandoned))
    }

    private func tick(_ task: RepeatedTask) {
        let now = ContinuousClock.now
        let due: [(@Sendable (Cause) -> Void, Cause)] = state.withLock { state in
            if state.watched.isEmpty {
                // Idle: the next statement starts the ticker again.
                task.cancel()
                state.ticker = nil
                return []
            }
            return state.watched.values.compactMap { watched in
                if watched.cancelled || watched.abandonment?.isFired == true { return (watched.stop, .signal(.abandoned)) }
                if watched.shutdown?.isFired == true { return (watched.stop, .signal(.shutdown)) }
                if let deadline = watched.deadline, now >= deadline { return (watched.stop, .deadline(watched.timeout)) }
                return nil
            }
        }
        for (stop, cause) in due { stop(cause) }
    }
}
