import Foundation
import Logging
import StrataStorage

/// A token signing key as `strata keys list` shows it: never its secret material.
public struct SigningKeySummary: Sendable, Equatable {
    /// The `kid` of the tokens it signs.
    public var kid: String
    /// `HS256` or `ES256`.
    public var algorithm: String
    /// When it was made (or imported from a data directory's `auth-signing.key`).
    public var createdAt: Date
    /// When a newer key took over signing; nil while this key signs.
    public var retiredAt: Date?
    /// Until when tokens it signed are accepted: its retirement plus a token lifetime and
    /// ``SigningKeys/leeway``; nil while it signs.
    public var verifiesUntil: Date?
}

/// The token signing keys in the system database, sealed and opened with the process's
/// ``KeyEncryption``: what a server does at start, what `strata keys rotate` does.
package struct SigningKeys: Sendable {
    let system: SystemDatabase
    let encryption: KeyEncryption
    /// The access token lifetime: how long a retired key still verifies.
    let lifetime: TimeInterval

    package init(system: SystemDatabase, encryption: KeyEncryption, lifetime: TimeInterval) {
        self.system = system
        self.encryption = encryption
        self.lifetime = lifetime
    }

    /// Added to the lifetime for a retired key: clocks differ, and a server may sign with a key
    /// for a moment after another server retired it, until the change reaches it.
    static let leeway: Int64 = 60

    /// The last second at which a token signed by `key` may be accepted; nil while it is active.
    func verifiesUntil(_ key: StoredSigningKey) -> Int64? {
        key.retiredAt.map { $0 + Int64(lifetime) + Self.leeway }
    }

    func verifies(_ key: StoredSigningKey, at now: Int64) -> Bool {
        verifiesUntil(key).map { now < $0 } ?? true
    }

    /// At a server's start: imports the data directory's `auth-signing.key` if it has one (it signs
    /// on while no key is active, otherwise it only verifies the tokens it signed), and creates a
    /// first key of `algorithm` if none is active. Servers starting at once take turns
    /// (``SystemDatabase/changeSigningKeys(_:)``), so they end with one active key.
    func prepare(algorithm: TokenAlgorithm, now: Date, logger: Logger) async throws {
        let legacy = try SigningKey.legacy(in: encryption.dataDirectory, logger: logger).map(SigningKeyMaterial.legacy)
        let existing = try await system.signingKeys()
        let hasActive = existing.contains { $0.retiredAt == nil }
        if hasActive, legacy.map({ key in existing.contains { $0.kid == key.kid } }) ?? true {
            if legacy != nil { try SigningKey.markImported(in: encryption.dataDirectory) }
            return
        }
        let sealing = try encryption.sealingKey(existing: existing)
        let seconds = AuthStore.seconds(now)
        let fresh = try Self.sealed(.generate(algorithm), with: sealing, now: seconds)
        let imported = try legacy.map { try Self.sealed($0, with: sealing, now: seconds) }
        let system = self.system
        let added = try await system.changeSigningKeys { connection -> [String] in
            let stored = try await system.signingKeys(connection)
            var active = stored.contains { $0.retiredAt == nil }
            var added: [String] = []
            if var imported, !stored.contains(where: { $0.kid == imported.kid }) {
                if active { imported.retiredAt = seconds }
                try await system.insertSigningKey(imported, connection)
                added.append(imported.kid)
                active = true
            }
            if !active {
                try await system.insertSigningKey(fresh, connection)
                added.append(fresh.kid)
            }
            if !added.isEmpty { try await system.announce(.keys, on: connection) }
            return added
        }
        if legacy != nil { try SigningKey.markImported(in: encryption.dataDirectory) }
        for kid in added { logger.info("Added a token signing key to the system database", metadata: ["kid": .string(kid)]) }
    }

    /// Adds a new key that signs from now on; the others are retired and verify for a token
    /// lifetime more; keys retired longer ago than that are deleted.
    ///
    /// Refused when this process could not open the keys there are (a wrong secret or file):
    /// a key sealed with a key-encryption key the servers lack would stop them. For the same
    /// reason, moving from the key file to a secret (a process holding both seals with the secret)
    /// must be asked for with `changeSealing`.
    @discardableResult
    package func rotate(algorithm: TokenAlgorithm, now: Date, changeSealing: Bool = false) async throws -> SigningKeySummary {
        let existing = try await system.signingKeys()
        let seconds = AuthStore.seconds(now)
        for key in existing where verifies(key, at: seconds) { _ = try encryption.openingKey(for: key) }
        let sealing = try encryption.sealingKey(existing: existing)
        if !changeSealing, let active = existing.first(where: { $0.retiredAt == nil }), active.sealedBy != sealing.source.rawValue,
           let secret = encryption.secret {
            throw ConfigurationError("""
                The signing keys are sealed with the key file \(KeyEncryptionKey.fileName), and this rotation would seal the \
                new key with \(secret); servers without that secret could not open it. To move to the secret, give every \
                server the same secret and rotate with --change-sealing (docs/KEYS.md); otherwise rotate without a secret.
                """)
        }
        let fresh = try Self.sealed(.generate(algorithm), with: sealing, now: seconds)
        let system = self.system
        let cutoff = seconds - Int64(lifetime) - Self.leeway
        try await system.changeSigningKeys { connection in
            try await system.insertSigningKey(fresh, connection)
            try await system.retireSigningKeys(except: fresh.kid, now: seconds, connection)
            try await system.deleteSigningKeys(retiredBefore: cutoff, connection)
            try await system.announce(.keys, on: connection)
        }
        return summary(fresh)
    }

    package func list() async throws -> [SigningKeySummary] {
        try await system.signingKeys().map(summary)
    }

    /// The keys that verify at `now`, opened, newest first; keys this process cannot open are an error.
    func open(at now: Date, reusing opened: [String: SigningKeyMaterial] = [:]) async throws -> [(StoredSigningKey, SigningKeyMaterial)] {
        let seconds = AuthStore.seconds(now)
        return try await system.signingKeys().filter { verifies($0, at: seconds) }.map { stored in
            guard let algorithm = TokenAlgorithm(rawValue: stored.algorithm) else {
                throw ConfigurationError("the signing key \(stored.kid) in the system database has the algorithm \(stored.algorithm), which this Strata does not know")
            }
            if let known = opened[stored.kid], known.algorithm == algorithm { return (stored, known) }
            let secret = try encryption.openingKey(for: stored).open(stored.sealedKey, kid: stored.kid, algorithm: algorithm)
            return (stored, SigningKeyMaterial(kid: stored.kid, algorithm: algorithm, secret: secret))
        }
    }

    func summary(_ key: StoredSigningKey) -> SigningKeySummary {
        SigningKeySummary(kid: key.kid, algorithm: key.algorithm, createdAt: Date(timeIntervalSince1970: TimeInterval(key.createdAt)),
                          retiredAt: key.retiredAt.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                          verifiesUntil: verifiesUntil(key).map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    private static func sealed(_ material: SigningKeyMaterial, with key: KeyEncryptionKey, now: Int64) throws -> StoredSigningKey {
        StoredSigningKey(kid: material.kid, algorithm: material.algorithm.rawValue,
                         sealedKey: try key.seal(material.secret, kid: material.kid, algorithm: material.algorithm),
                         sealedBy: key.source.rawValue, keyCheck: key.check, publicJWK: try material.publicJWK(),
                         createdAt: now, retiredAt: nil)
    }
}
