import Logging
import Synchronization
import StrataStorage
import StrataIdentity

/// Applies on this server the changes other servers announce on the system database
/// (``SystemChange``), as the listener receives them:
/// - ``SystemChange/auth``: the authentication caches are forgotten (``AuthStore/forgetCached()``);
/// - ``SystemChange/services``: the services are loaded again (``StrataRuntime/reloadServices()``),
///   bursts coalesced: a reload under way plus at most one more, which starts after it and so reads
///   every change announced before it began;
/// - ``SystemChange/keys``: the handler registered with ``onKeysChanged(_:)``, if any.
///
/// When the listener reconnects, notifications may have been missed while it was down, so
/// everything is done once (``everythingChanged()``; in tasks of their own, so serving goes on). At
/// its first connection the server has just loaded its services; only the cheap part is done then
/// (the caches are forgotten, the keys handler runs), for what changed between the server's first
/// reads and its `LISTEN`. While the listener is connected, the caches are held for the long age of
/// ``CacheFreshness``; while it is down, the short fallback age applies.
final class SystemChangeDispatcher: Sendable {
    private let runtime: StrataRuntime
    private let logger: Logger
    private let keysChanged = Mutex<(@Sendable () async -> Void)?>(nil)
    private let reloads = Mutex(ReloadState())

    private struct ReloadState {
        /// The reload under way, which ``stop()`` waits for.
        var running: Task<Void, Never>?
        var queued = false
        /// Set by ``stop()``: the server is closing, no reload may start.
        var stopped = false
        /// Reloads run so far, for tests.
        var completed = 0
    }

    init(runtime: StrataRuntime) {
        self.runtime = runtime
        self.logger = runtime.logger
    }

    /// The freshness of the authentication caches, which the listener's state decides; nil without
    /// authentication.
    var freshness: CacheFreshness? { runtime.auth?.store.freshness }

    /// Registers what to do when another server changed the token signing keys (the key ring's
    /// reload); replaces any handler registered before.
    func onKeysChanged(_ handler: @escaping @Sendable () async -> Void) {
        keysChanged.withLock { $0 = handler }
    }

    /// Applies one announced change; an unknown payload (from a newer server) changes everything.
    func apply(_ payload: String) {
        guard let change = SystemChange(rawValue: payload) else {
            logger.notice("Unknown change announced by another server; reading everything again", metadata: ["change": .string(payload)])
            everythingChanged()
            return
        }
        switch change {
        case .auth: runtime.auth?.store.forgetCached()
        case .services: requestReload()
        case .keys: reloadKeys()
        }
    }

    /// Forgets and reloads everything another server may have changed.
    func everythingChanged() {
        runtime.auth?.store.forgetCached()
        reloadKeys()
        requestReload()
    }

    /// Runs the keys handler in a task of its own, so that the notifications behind it (an `auth`
    /// change, say) are not held up by its reads.
    private func reloadKeys() {
        guard !reloads.withLock({ $0.stopped }), let handler = keysChanged.withLock({ $0 }) else { return }
        Task { await handler() }
    }

    /// The listener's connection is up (`first`: for the first time) or down.
    func listening(_ up: Bool, first: Bool = false) {
        freshness?.setListening(up)
        guard up else { return }
        if first {
            runtime.auth?.store.forgetCached()
            reloadKeys()
        } else {
            everythingChanged()
        }
    }

    /// Starts a reload of the services in a task of its own, or, when one is running, makes sure
    /// one more runs after it.
    func requestReload() {
        reloads.withLock { state in
            guard !state.stopped else { return }
            if state.running != nil {
                state.queued = true
                return
            }
            // Created under the lock: the task's own bookkeeping takes the lock, so it cannot
            // finish before `running` is recorded.
            state.running = Task { await self.reloadUntilQuiet() }
        }
    }

    /// Starts no more reloads and waits for the one under way: called before the databases close,
    /// so that no reload runs on closed connections.
    func stop() async {
        let running = reloads.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.queued = false
            return state.running
        }
        await running?.value
    }

    private func reloadUntilQuiet() async {
        while true {
            do {
                let report = try await runtime.reloadServices()
                if !report.refused.isEmpty {
                    logger.error("Reloaded the services after a change announced by another server; some model files were refused",
                                 metadata: ["refused": .string(report.refused.keys.sorted().joined(separator: ", "))])
                }
            } catch {
                logger.error("Could not reload the services after a change announced by another server",
                             metadata: ["error": "\(String(reflecting: error))"])
            }
            let again = reloads.withLock { state -> Bool in
                state.completed += 1
                if state.queued, !state.stopped {
                    state.queued = false
                    return true
                }
                state.running = nil
                return false
            }
            guard again else { return }
        }
    }

    /// How many service reloads the dispatcher has run, for tests.
    var reloadCount: Int { reloads.withLock { $0.completed } }
}
