import Foundation
import JWTKit
import Logging
import StrataCore
import Synchronization
import StrataStorage

/// The token signing keys a server holds, read from the system database: the newest active key
/// signs; every key that is active, or retired less than a token lifetime (plus
/// ``SigningKeys/leeway``) ago, verifies the tokens that name it in their `kid`.
///
/// Keys change on another server (`strata keys rotate`, a first start) and reach this one three
/// ways: ``reload()`` when the system database announces ``SystemChange/keys``; a token naming a
/// kid this server does not know, which reads the keys again (at most once per
/// ``unknownKidInterval``) before refusing it; and keys older than ``maximumAge`` are read again
/// before the next signature or check, so a server that hears nothing stops signing with a retired
/// key, and learns when one stops verifying, well within the leeway.
package final class SigningKeyRing: Sendable {
    package struct Entry: Sendable {
        let stored: StoredSigningKey
        let material: SigningKeyMaterial
        let keys: JWTKeyCollection
    }

    struct Snapshot: Sendable {
        var entries: [String: Entry]
        var signing: Entry
        var loadedAt: ContinuousClock.Instant
    }

    private struct State {
        /// Nil until ``start()``.
        var snapshot: Snapshot?
        var reloading: Task<Void, any Error>?
        var lastReload: ContinuousClock.Instant
        /// When a token's unknown kid last made the ring read the keys.
        var lastUnknownKid: ContinuousClock.Instant?
    }

    static let unknownKidInterval = Duration.seconds(1)
    static let maximumAge = Duration.seconds(30)

    package let store: SigningKeys
    let algorithm: TokenAlgorithm
    let now: @Sendable () -> Date
    let logger: Logger
    private let state = Mutex(State(snapshot: nil, reloading: nil, lastReload: .now, lastUnknownKid: nil))

    /// A ring that holds no key until ``start()``.
    init(store: SigningKeys, algorithm: TokenAlgorithm, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.algorithm = algorithm
        self.now = now
        self.logger = logger
    }

    /// Once the system tables are migrated: prepares the keys in the system database
    /// (``SigningKeys/prepare(algorithm:now:logger:)``) and opens them. A key this server cannot
    /// open stops it with a message that says what to give it.
    func start() async throws {
        try await store.prepare(algorithm: algorithm, now: now(), logger: logger)
        let snapshot = try await Self.load(store, at: now(), previous: nil)
        state.withLock {
            $0.snapshot = snapshot
            $0.lastReload = .now
        }
    }

    private static func load(_ store: SigningKeys, at now: Date, previous: Snapshot?) async throws -> Snapshot {
        let reusable = previous?.entries.mapValues(\.material) ?? [:]
        var entries: [String: Entry] = [:]
        var signing: Entry?
        for (stored, material) in try await store.open(at: now, reusing: reusable) {
            let keys: JWTKeyCollection
            if let known = previous?.entries[stored.kid], known.material.algorithm == material.algorithm {
                keys = known.keys
            } else {
                keys = try await material.keyCollection()
            }
            let entry = Entry(stored: stored, material: material, keys: keys)
            entries[stored.kid] = entry
            // Newest first: the first active key signs.
            if signing == nil, stored.retiredAt == nil { signing = entry }
        }
        guard let signing else {
            throw ConfigurationError("the system database holds no active token signing key; create one with `strata keys rotate`")
        }
        return Snapshot(entries: entries, signing: signing, loadedAt: .now)
    }

    /// The keys held now; a 503 before ``start()``.
    func snapshot() throws -> Snapshot {
        guard let snapshot = state.withLock({ $0.snapshot }) else {
            throw ODataError(status: 503, code: "ServiceUnavailable", message: "The server is starting; try again in a moment.")
        }
        return snapshot
    }

    /// Reads the keys again; on failure the keys held stay. A reload that began after the call is
    /// joined; one that began before it may have missed the change the caller heard of, so it is
    /// waited for and then another one runs.
    func reload() async throws {
        let requested = ContinuousClock.now
        while true {
            let (task, fresh) = state.withLock { state -> (Task<Void, any Error>, Bool) in
                if let running = state.reloading { return (running, state.lastReload >= requested) }
                let previous = state.snapshot
                let task = Task {
                    defer { self.state.withLock { $0.reloading = nil } }
                    let snapshot = try await Self.load(self.store, at: self.now(), previous: previous)
                    self.state.withLock { $0.snapshot = snapshot }
                }
                state.reloading = task
                state.lastReload = .now
                return (task, true)
            }
            if fresh { return try await task.value }
            _ = try? await task.value
        }
    }

    /// ``reload()`` when the keys were last read (or tried) more than ``maximumAge`` ago; failures
    /// are logged, and tried again only after another ``maximumAge``.
    private func reloadIfStale() async throws {
        guard ContinuousClock.now - state.withLock({ $0.lastReload }) > Self.maximumAge else { return }
        await reloadLogging()
    }

    /// Reads the keys for a token whose kid is not among them: at once the first time, then at most
    /// once per ``unknownKidInterval`` (a caller inside it waits for the next turn rather than being
    /// refused, since its key may be that new), and not at all when a reload began since it asked.
    private func reloadForUnknownKid() async {
        let arrival = ContinuousClock.now
        let wait = state.withLock { state in state.lastUnknownKid.map { arrival.duration(to: $0 + Self.unknownKidInterval) } ?? .zero }
        if wait > .zero { try? await Task.sleep(for: wait) }
        let running = state.withLock { state -> Task<Void, any Error>?? in
            guard state.lastReload < arrival else { return .some(state.reloading) }
            state.lastUnknownKid = .now
            return nil
        }
        switch running {
        case .some(.some(let task)): _ = try? await task.value
        case .some(.none): return
        case .none: await reloadLogging()
        }
    }

    private func reloadLogging() async {
        do {
            try await reload()
        } catch {
            logger.error("Reading the token signing keys failed; the keys held so far stay in use", metadata: ["error": "\(error)"])
        }
    }

    /// The kid of the key that signs now.
    var signingKid: String { get throws { try snapshot().signing.stored.kid } }

    func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await reloadIfStale()
        let signing = try snapshot().signing
        return try await signing.keys.sign(claims, kid: JWKIdentifier(string: signing.stored.kid), header: ["typ": "JWT"])
    }

    /// Checks the signature with the key the token's `kid` names (a token without one: the keys
    /// imported from `auth-signing.key`, which signed such tokens), and that the key still
    /// verifies at `now`. Any failure is a 401.
    func verify(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let parts = try UnverifiedToken(token)
        try await reloadIfStale()
        let kid = parts.header["kid"]?.stringValue
        var candidates = try entries(for: kid)
        if candidates.isEmpty, kid != nil {
            await reloadForUnknownKid()
            candidates = try entries(for: kid)
        }
        guard !candidates.isEmpty else {
            throw AuthErrors.invalidToken("The token was signed with a key this server does not know; sign in again.")
        }
        let seconds = AuthStore.seconds(now)
        for entry in candidates where parts.algorithm == entry.material.algorithm.rawValue {
            guard store.verifies(entry.stored, at: seconds) else {
                throw AuthErrors.invalidToken("The token was signed with a key that was retired too long ago; sign in again.")
            }
            if let claims = try? await entry.keys.verify(token, as: AccessTokenClaims.self) { return claims }
        }
        if !candidates.contains(where: { parts.algorithm == $0.material.algorithm.rawValue }) {
            throw AuthErrors.invalidToken("The token is not signed with \(candidates[0].material.algorithm).")
        }
        throw AuthErrors.invalidToken("The token's signature or claims are not valid.")
    }

    private func entries(for kid: String?) throws -> [Entry] {
        let entries = try snapshot().entries
        if let kid { return entries[kid].map { [$0] } ?? [] }
        return entries.values.filter(\.material.isLegacy)
    }
}
