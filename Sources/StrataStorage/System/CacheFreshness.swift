import Synchronization

/// How long a server may answer from its copies of the system database (anonymous access, grants,
/// recently verified callers) before reading it again: the one source every such cache asks, at
/// every use, for its current maximum age.
///
/// On PostgreSQL a server listens for the changes other servers announce
/// (``SystemDatabase/announce(_:on:)``) and forgets its copies when one arrives, so while it listens
/// the copies may be held for ``pushedMaxAge``: a change reaches it by the notification, and the age
/// only bounds what a lost notification could cost. While the listening connection is down (and on
/// SQLite, where nothing listens), ``fallbackMaxAge`` applies again: polling is the fallback. Ages
/// are compared when a copy is used, not fixed when it is loaded, so a copy loaded while listening
/// stops being answered from within the fallback age as soon as the listener drops.
package final class CacheFreshness: Sendable {
    private struct State {
        var listening = false
        var fallback: Duration
        var pushed: Duration
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - fallback: the age while nothing pushes changes (``AuthSettings/cacheMaxAge``).
    ///   - pushed: the age while changes are pushed (``AuthSettings/pushedCacheMaxAge``); never
    ///     shorter than `fallback`.
    package init(fallback: Duration, pushed: Duration? = nil) {
        state = Mutex(State(fallback: fallback, pushed: pushed ?? fallback))
    }

    /// The age copies may reach now.
    package var maxAge: Duration {
        state.withLock { $0.listening ? max($0.pushed, $0.fallback) : $0.fallback }
    }

    /// Whether changes are being pushed to this server now.
    var isListening: Bool {
        state.withLock { $0.listening }
    }

    /// Called by the listener when its connection is up (after `LISTEN`) and when it drops.
    package func setListening(_ listening: Bool) {
        state.withLock { $0.listening = listening }
    }

    var fallbackMaxAge: Duration {
        get { state.withLock { $0.fallback } }
        set { state.withLock { $0.fallback = newValue } }
    }

    var pushedMaxAge: Duration {
        get { state.withLock { $0.pushed } }
        set { state.withLock { $0.pushed = newValue } }
    }
}
