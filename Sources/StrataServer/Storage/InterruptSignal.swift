import Synchronization

/// A one-shot signal that stops running statements: fired when a client hangs up, or when the
/// server shuts down.
///
/// Statements that may run long register what stops them (``onFire(_:)``) while they run and
/// unregister when they end; firing runs every registered action once, and an action registered
/// after the signal fired runs at once. A lock rather than an actor: registering is a few
/// instructions on a statement's path, and firing comes from an event loop that must not wait.
final class InterruptSignal: Sendable {
    /// Why statements are stopped; the client sees a different answer for each.
    enum Reason: UInt8, Sendable {
        /// The client closed its connection: nobody waits for the answer.
        case abandoned = 1
        /// The server is shutting down.
        case shutdown = 2
    }

    let reason: Reason
    private let state = Mutex(State())

    private struct State {
        var fired = false
        var next = 0
        var actions: [Int: @Sendable () -> Void] = [:]
    }

    init(reason: Reason) {
        self.reason = reason
    }

    var isFired: Bool { state.withLock { $0.fired } }

    /// Registers `action` until ``remove(_:)``; nil when the signal has fired already, in which case
    /// `action` has run.
    func onFire(_ action: @escaping @Sendable () -> Void) -> Int? {
        let token: Int? = state.withLock { state in
            guard !state.fired else { return nil }
            state.next += 1
            state.actions[state.next] = action
            return state.next
        }
        if token == nil { action() }
        return token
    }

    func remove(_ token: Int?) {
        guard let token else { return }
        _ = state.withLock { $0.actions.removeValue(forKey: token) }
    }

    /// Runs every registered action once; later calls do nothing.
    func fire() {
        let actions: [@Sendable () -> Void] = state.withLock { state in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.actions.removeAll() }
            return Array(state.actions.values)
        }
        for action in actions { action() }
    }
}
