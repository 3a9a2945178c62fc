import Synchronization
import StrataStorage

/// The callers of recently verified Strata access tokens, so that a client sending the same token
/// on every request pays for the signature check and the session and account lookups once, not
/// on every request.
///
/// The key is the whole token text: HMAC verification is deterministic, so a token that verified
/// once verifies again, and a different or altered token never matches an entry. An entry is
/// answered from only while all of these hold:
/// - the token and its sign-in have not expired (checked on every use, with the server's clock);
/// - no write through ``AuthStore`` has happened since it was verified (``invalidate()``), so
///   signing out, a new password, a removed account or role changed through this server apply to
///   the very next request;
/// - it is younger than ``CacheFreshness/maxAge`` (asked at each use), so changes made by another
///   server or process on the same data (`strata user remove`, `strata user passwd`, a sign-out
///   through another server) apply within that time, as grant changes do. On PostgreSQL such
///   changes are also pushed: the server's listener calls ``invalidate()`` when they are announced,
///   so they apply to the next request and the age is long while the listener is connected; it falls
///   back to ``AuthSettings/cacheMaxAge`` when the listener is down, and on SQLite.
///
/// Only successes are held: a refused token is checked in full every time it is sent.
final class SignInCache: Sendable {
    private struct Entry {
        var principal: Principal
        /// The earlier of the token's `exp` and its sign-in's end, in Unix seconds.
        var expiresAt: Int64
        /// When its lookups began: its age counts from there.
        var verifiedAt: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Bumped by every invalidation, so that a verification that began before a write cannot
        /// store what it read before the write committed.
        var generation = 0
    }

    let freshness: CacheFreshness
    /// Entries held at most; when full, stale entries go first, then all of them.
    let capacity: Int
    private let clock = ContinuousClock()
    private let state = Mutex(State())

    init(freshness: CacheFreshness, capacity: Int = 10_000) {
        self.freshness = freshness
        self.capacity = capacity
    }

    /// A cache whose entries are answered from for a fixed age.
    convenience init(maxAge: Duration, capacity: Int = 10_000) {
        self.init(freshness: CacheFreshness(fallback: maxAge), capacity: capacity)
    }

    /// A token about to be verified: what ``remember(_:expiresAt:for:)`` needs to tell whether
    /// the verification's answer may be kept.
    struct Ticket: Sendable {
        fileprivate let token: String
        fileprivate let generation: Int
        fileprivate let started: ContinuousClock.Instant
    }

    /// The caller of `token` if it was verified recently and nothing has changed since; nil
    /// otherwise. `now` is the server's clock in Unix seconds.
    func principal(for token: String, now: Int64) -> Principal? {
        let instant = clock.now
        let maxAge = freshness.maxAge
        return state.withLock { state in
            guard let entry = state.entries[token] else { return nil }
            guard now < entry.expiresAt, instant < entry.verifiedAt.advanced(by: maxAge) else {
                state.entries[token] = nil
                return nil
            }
            return entry.principal
        }
    }

    /// Starts a verification of `token`; take the ticket before reading anything.
    func ticket(for token: String) -> Ticket {
        Ticket(token: token, generation: state.withLock { $0.generation }, started: clock.now)
    }

    /// Keeps a verified caller, unless an invalidation happened since the ticket was taken.
    func remember(_ principal: Principal, expiresAt: Int64, for ticket: Ticket) {
        let instant = clock.now
        let maxAge = freshness.maxAge
        state.withLock { state in
            guard state.generation == ticket.generation else { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { instant < $0.value.verifiedAt.advanced(by: maxAge) }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[ticket.token] = Entry(principal: principal, expiresAt: expiresAt, verifiedAt: ticket.started)
        }
    }

    /// Forgets every entry; the next request with any token is verified in full.
    func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }

    /// How many callers are held, for tests.
    var count: Int {
        state.withLock { $0.entries.count }
    }
}
