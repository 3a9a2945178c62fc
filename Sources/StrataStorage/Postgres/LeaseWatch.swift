import Synchronization

/// Gives up on connection leases that wait too long, with one watcher for all of them.
///
/// postgres-nio's pool keeps a lease request waiting while it retries a database that is down, for
/// up to a minute. A request should get its 503 sooner, but racing every lease against a timer task
/// of its own (a task group, a second task, `Task.sleep`) cost more per request than the lease itself.
/// Here a lease only registers a ticket; one watcher task, alive while tickets wait, looks at them a
/// few times a second and cancels the leases whose time in the pool is up. A deadline is therefore
/// kept to within ``resolution``, once the cooperative pool has a thread for the watcher.
final class LeaseWatch: Sendable {
    /// How often the watcher looks at the waiting leases.
    let resolution: Duration
    private let state = Mutex(State())

    private struct State {
        var waiting: [ObjectIdentifier: LeaseTicket] = [:]
        var watching = false
        var suspicion: Suspicion?
        var checking = false
    }

    /// What to ask when a lease has waited long: whether the database is down.
    private struct Suspicion {
        var after: Duration
        var isDown: @Sendable () async -> Bool
    }

    init(resolution: Duration = .milliseconds(200)) {
        self.resolution = resolution
    }

    /// When a lease has waited `after`, asks `isDown` (once at a time); when it says the database is
    /// down, every waiting lease gives up now instead of at its timeout.
    func suspect(after: Duration, isDown: @escaping @Sendable () async -> Bool) {
        state.withLock { $0.suspicion = Suspicion(after: after, isDown: isDown) }
    }

    /// A ticket for a lease that may wait `timeout` once it asks the pool (``LeaseTicket/start()``): if
    /// it is still waiting then, the watcher calls what the lease registered with ``LeaseTicket/onExpiry(_:)``.
    func ticket(timeout: Duration) -> LeaseTicket {
        let ticket = LeaseTicket(timeout: timeout, watch: self)
        let startWatcher = state.withLock { state in
            state.waiting[ObjectIdentifier(ticket)] = ticket
            defer { state.watching = true }
            return !state.watching
        }
        if startWatcher {
            Task { await self.watch() }
        }
        return ticket
    }

    fileprivate func remove(_ ticket: LeaseTicket) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(ticket)) }
    }

    /// Runs while tickets wait; the last round that finds none ends it (the next ticket starts a new one).
    private func watch() async {
        while true {
            try? await Task.sleep(for: resolution)
            let now = ContinuousClock.now
            let round: (expired: [LeaseTicket], check: Suspicion?)? = state.withLock { state in
                if state.waiting.isEmpty {
                    state.watching = false
                    return nil
                }
                let expired = state.waiting.values.filter { $0.isPast(now) }
                for ticket in expired { state.waiting.removeValue(forKey: ObjectIdentifier(ticket)) }
                var check: Suspicion?
                if let suspicion = state.suspicion, !state.checking,
                   state.waiting.values.contains(where: { $0.isPast(now, by: suspicion.after) }) {
                    state.checking = true
                    check = suspicion
                }
                return (expired, check)
            }
            guard let round else { return }
            for ticket in round.expired { ticket.expire() }
            if let check = round.check {
                Task {
                    let down = await check.isDown()
                    let waiting: [LeaseTicket] = self.state.withLock { state in
                        state.checking = false
                        guard down else { return [] }
                        defer { state.waiting.removeAll() }
                        return Array(state.waiting.values)
                    }
                    for ticket in waiting { ticket.expire() }
                }
            }
        }
    }
}

/// One lease's standing with the ``LeaseWatch``: waiting, holding a connection, given up, or failed.
final class LeaseTicket: Sendable {
    let timeout: Duration
    private let watch: LeaseWatch
    private let state = Mutex(State())

    private struct State {
        /// When the lease asked the pool: time before that (a task not yet scheduled on a busy
        /// cooperative pool) is not the database's delay.
        var started: ContinuousClock.Instant?
        var phase = Phase.waiting(cancel: nil)
    }

    private enum Phase {
        case waiting(cancel: (@Sendable () -> Void)?)
        case acquired
        case expired
        case ended
    }

    fileprivate init(timeout: Duration, watch: LeaseWatch) {
        self.timeout = timeout
        self.watch = watch
    }

    /// The lease asks the pool now; its timeout runs from here.
    func start() {
        state.withLock { $0.started = ContinuousClock.now }
    }

    fileprivate func isPast(_ now: ContinuousClock.Instant) -> Bool {
        isPast(now, by: timeout)
    }

    /// Whether the lease has waited at least `duration` in the pool.
    fileprivate func isPast(_ now: ContinuousClock.Instant, by duration: Duration) -> Bool {
        guard let started = state.withLock({ $0.started }) else { return false }
        return started + duration <= now
    }

    /// What to call when the lease's time in the pool is up first; called at once if it already is.
    func onExpiry(_ cancel: @escaping @Sendable () -> Void) {
        let expired = state.withLock { state in
            switch state.phase {
            case .waiting: state.phase = .waiting(cancel: cancel); return false
            case .expired: return true
            case .acquired, .ended: return false
            }
        }
        if expired { cancel() }
    }

    /// The lease got its connection; false when it came too late (the lease was already given up).
    func acquire() -> Bool {
        settle(as: .acquired)
    }

    /// The lease failed before it got a connection; the watcher need not look at it any more.
    func end() {
        _ = settle(as: .ended)
    }

    /// Whether the watcher gave up on this lease.
    var isExpired: Bool {
        state.withLock { if case .expired = $0.phase { true } else { false } }
    }

    /// Whether the lease got a connection.
    var isAcquired: Bool {
        state.withLock { if case .acquired = $0.phase { true } else { false } }
    }

    private func settle(as outcome: Phase) -> Bool {
        let settled = state.withLock { state in
            guard case .waiting = state.phase else { return false }
            state.phase = outcome
            return true
        }
        if settled { watch.remove(self) }
        return settled
    }

    fileprivate func expire() {
        let cancel: (@Sendable () -> Void)? = state.withLock { state in
            guard case .waiting(let cancel) = state.phase else { return nil }
            state.phase = .expired
            return cancel
        }
        cancel?()
    }
}
