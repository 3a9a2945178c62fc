import Crypto
import Foundation
import Logging
import Synchronization
import StrataStorage

/// The keys that authenticate change-feed tokens, read from the system database (``StoredFeedKey``)
/// and shared by every server on it: a token issued by one server is accepted by all, and after a
/// restart.
///
/// The newest active key authenticates new tokens; every key verifies until it has been retired
/// for the change retention (``StrataConfiguration/changeRetention``) plus a day, so a delta token
/// outlives a rotation as long as the changes it points at are kept. A token naming a key this
/// server does not know reads the keys again (at most once per second) before it is refused.
package final class FeedKeyRing: Sendable {
    private struct State {
        var keys: [UInt32: SymmetricKey] = [:]
        var current: (id: UInt32, key: SymmetricKey)?
        var lastUnknownKey: ContinuousClock.Instant?
    }

    private let system: SystemDatabase
    private let logger: Logger
    private let state = Mutex(State())

    package init(system: SystemDatabase, logger: Logger) {
        self.system = system
        self.logger = logger
    }

    /// Once the system tables are migrated: creates the first key if there is none (one, however
    /// many servers start at once), deletes the keys retired longer than `retention` plus a day
    /// ago (no token they authenticated can still be followed), and reads them.
    package func start(now: Date, retention: Duration) async throws {
        if try await !system.feedKeys().contains(where: { $0.retiredAt == nil }) {
            try await system.addFeedKey(Self.newKey(now: now), retiringOthers: false)
        }
        try await system.deleteFeedKeys(retiredBefore: Int64(now.timeIntervalSince1970) - retention.components.seconds - 86_400)
        try await reload()
    }

    /// A new active key; the others retire (`strata keys rotate --feed`).
    func rotate(now: Date) async throws {
        try await system.addFeedKey(Self.newKey(now: now), retiringOthers: true)
        try await reload()
    }

    /// Reads the keys again: when the system database announces a key change.
    package func reload() async throws {
        let stored = try await system.feedKeys()
        var keys: [UInt32: SymmetricKey] = [:]
        for key in stored {
            guard let bytes = Self.bytes(hex: key.keyHex), bytes.count == 32 else {
                logger.error("A feed key in the system database is damaged; it is ignored", metadata: ["id": .stringConvertible(key.id)])
                continue
            }
            keys[key.id] = SymmetricKey(data: bytes)
        }
        let current = stored.first { $0.retiredAt == nil }.flatMap { entry in keys[entry.id].map { (entry.id, $0) } }
        state.withLock { state in
            state.keys = keys
            state.current = current
        }
    }

    /// The key that authenticates new tokens.
    func signingKey() throws -> (id: UInt32, key: SymmetricKey) {
        guard let current = state.withLock({ $0.current }) else {
            throw ConfigurationError("the change feed has no key: the server did not start its feed keys")
        }
        return current
    }

    /// The key named `id`, reading the keys again when it is unknown (at most once a second).
    func key(id: UInt32) async -> SymmetricKey? {
        if let key = state.withLock({ $0.keys[id] }) { return key }
        let now = ContinuousClock.now
        let mayReload = state.withLock { state in
            if let last = state.lastUnknownKey, now - last < .seconds(1) { return false }
            state.lastUnknownKey = now
            return true
        }
        guard mayReload else { return nil }
        do {
            try await reload()
        } catch {
            logger.warning("Could not read the feed keys", metadata: ["error": .string("\(error)")])
        }
        return state.withLock { $0.keys[id] }
    }

    package static func newKey(now: Date) -> StoredFeedKey {
        let id = UInt32.random(in: 1 ... .max)
        return StoredFeedKey(id: id, keyHex: Hex.lowercase(RandomSecret.bytes(32)), createdAt: Int64(now.timeIntervalSince1970), retiredAt: nil)
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
