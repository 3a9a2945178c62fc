import StrataCore
import Synchronization
import StrataStorage

/// The whole of `service_access` and `role_grants` as read at one moment: what every table action
/// and service check asks about anonymous access and grants. Both tables hold a handful of rows per
/// service and role, so holding them all costs less than one statement per request.
struct AccessSettings: Sendable {
    /// Services with a stored setting; a service without one allows nothing anonymously.
    var anonymous: [String: AnonymousAccess]
    /// Grants per service, in a fixed order (role, then table) so that combined filters do not
    /// depend on the order rows happened to come back in.
    var grantsByService: [String: [TableGrant]]

    init(anonymous: [String: AnonymousAccess], grants: [TableGrant]) {
        self.anonymous = anonymous
        var byService: [String: [TableGrant]] = [:]
        for grant in grants {
            byService[grant.service, default: []].append(grant)
        }
        self.grantsByService = byService.mapValues { list in
            list.sorted { ($0.role, $0.table ?? AuthStore.every, $0.action.rawValue) < ($1.role, $1.table ?? AuthStore.every, $1.action.rawValue) }
        }
    }

    func anonymousAccess(_ service: String) -> AnonymousAccess {
        anonymous[service] ?? .none
    }

    /// The grants of any of `roles` for `action` on `table` of `service`, every-table grants included.
    func grants(service: String, table: String, action: TableAction, roles: Set<String>) -> [TableGrant] {
        guard !roles.isEmpty, let grants = grantsByService[service] else { return [] }
        return grants.filter { grant in
            grant.action == action && (grant.table == nil || grant.table == table) && roles.contains(grant.role)
        }
    }

    /// Every grant of any of `roles` in `service`.
    func grants(service: String, roles: Set<String>) -> [TableGrant] {
        guard !roles.isEmpty, let grants = grantsByService[service] else { return [] }
        return grants.filter { roles.contains($0.role) }
    }
}

/// The server's copy of ``AccessSettings``, so that authorizing a request costs a lock and a clock
/// read instead of a statement on the system database.
///
/// Two rules bound how stale an answer can be:
/// - Writes through ``AuthStore/write(_:)`` call ``invalidate()`` once their transaction has ended, so a
///   change made through this process (`/admin`) applies to the very next request.
/// - A snapshot is answered from only until ``CacheFreshness/maxAge`` after its load began (asked at
///   each use); then the next caller reloads it. On PostgreSQL, changes made through another server
///   or process (`strata grant`) are announced and the server's listener calls ``invalidate()`` when
///   they arrive, so they apply to the next request and the age is long (a minute) while the listener
///   is connected; when it is not, and on SQLite, the age falls back to ``AuthSettings/cacheMaxAge``
///   (one second by default), within which such changes apply by polling.
///
/// Reloads are single-flight: callers that find the snapshot missing or expired wait for the one
/// load under way. A failed load throws to every caller waiting for it, as the statement did
/// before; an expired snapshot is never answered from, so after a failure the next caller tries
/// again rather than getting old answers.
final class AccessSettingsCache: Sendable {
    private struct State {
        /// The last loaded snapshot and the instant its load began (its age counts from there).
        var current: (settings: AccessSettings, loaded: ContinuousClock.Instant)?
        /// The load under way, which callers join instead of starting their own.
        var loading: Task<AccessSettings, any Error>?
        /// Bumped by every invalidation, so that a load that began before a write cannot install
        /// what it read after the write committed.
        var generation = 0
        /// How many loads have run, for tests that prove requests do not each read the tables.
        var loads = 0
    }

    private enum Next {
        case fresh(AccessSettings)
        case wait(Task<AccessSettings, any Error>)
    }

    let freshness: CacheFreshness
    private let clock = ContinuousClock()
    private let load: @Sendable () async throws -> AccessSettings
    private let state = Mutex(State())

    init(freshness: CacheFreshness, load: @escaping @Sendable () async throws -> AccessSettings) {
        self.freshness = freshness
        self.load = load
    }

    /// A cache whose snapshots are answered from for a fixed age.
    convenience init(maxAge: Duration, load: @escaping @Sendable () async throws -> AccessSettings) {
        self.init(freshness: CacheFreshness(fallback: maxAge), load: load)
    }

    /// A snapshot no older than the current max age and loaded after the last invalidation.
    func settings() async throws -> AccessSettings {
        let now = clock.now
        let maxAge = freshness.maxAge
        let next = state.withLock { state -> Next in
            if let current = state.current, now < current.loaded.advanced(by: maxAge) { return .fresh(current.settings) }
            if let loading = state.loading { return .wait(loading) }
            let generation = state.generation
            // Unstructured so that one caller's cancellation does not fail the others waiting for it.
            // Created under the lock: the load's own bookkeeping takes the lock, so it cannot finish
            // before `loading` is recorded.
            let task = Task { try await self.reload(generation: generation) }
            state.loading = task
            return .wait(task)
        }
        switch next {
        case .fresh(let settings): return settings
        case .wait(let task): return try await task.value
        }
    }

    /// Forgets the snapshot and any load under way; the next caller reads the tables again.
    func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.current = nil
            state.loading = nil
        }
    }

    /// How many loads have completed (successfully or not) since the cache was made.
    var loadCount: Int {
        state.withLock { $0.loads }
    }

    private func reload(generation: Int) async throws -> AccessSettings {
        // Age counts from before the read, so a change committed after the read began is at most
        // the max age from being seen.
        let started = clock.now
        let result: Result<AccessSettings, any Error>
        do {
            result = .success(try await load())
        } catch {
            result = .failure(error)
        }
        state.withLock { state in
            state.loads += 1
            // After an invalidation, this load's waiters get what it read (they asked before the
            // write committed), but later callers start a load of their own.
            guard state.generation == generation else { return }
            state.loading = nil
            if case .success(let settings) = result {
                state.current = (settings, started)
            }
        }
        return try result.get()
    }
}
