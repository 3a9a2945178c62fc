import Foundation
import Logging
import StrataStorage

/// The key-encryption keys a server (or `strata keys`) holds: the one derived from its
/// ``KeySecret`` if it was given one, and its data directory's `key-encryption.key` if there is one.
package struct KeyEncryption: Sendable {
    let secret: KeySecret?
    let dataDirectory: String
    let logger: Logger

    package init(secret: KeySecret? = nil, dataDirectory: String, logger: Logger) {
        self.secret = secret
        self.dataDirectory = dataDirectory
        self.logger = logger
    }

    private var derived: KeyEncryptionKey? { secret.map(KeyEncryptionKey.derived(from:)) }
    private var filePath: String { KeyEncryptionKey.path(in: dataDirectory) }

    /// The key new signing keys are sealed with: the secret's; without one, the data directory's
    /// file, generated only when the table holds no key yet (otherwise the keys there were sealed
    /// with a file another server has, and a new one would open none of them).
    func sealingKey(existing: [StoredSigningKey]) throws -> KeyEncryptionKey {
        if let derived { return derived }
        if let file = try KeyEncryptionKey.file(in: dataDirectory, create: existing.isEmpty, logger: logger) { return file }
        if let sealed = existing.first, sealed.sealedBy == KeyEncryptionKey.Source.secret.rawValue {
            throw Self.secretMissing
        }
        throw missingFile
    }

    /// The key that opens `stored`, or an error that says exactly what this server lacks.
    func openingKey(for stored: StoredSigningKey) throws -> KeyEncryptionKey {
        try openingKey(sealedBy: stored.sealedBy, keyCheck: stored.keyCheck, what: "key \(stored.kid)")
    }

    /// The key that opens something sealed by the key `sealedBy` names with check value `keyCheck`;
    /// `what` names it in errors (`key KID`, `the client secret of provider NAME`).
    func openingKey(sealedBy: String, keyCheck: String, what: String) throws -> KeyEncryptionKey {
        switch KeyEncryptionKey.Source(rawValue: sealedBy) {
        case .secret:
            guard let derived, let secret else { throw Self.secretMissing }
            guard derived.check == keyCheck else {
                throw ConfigurationError("""
                    The key secret from \(secret.source) is not the one the token signing keys in the system database \
                    were sealed with (\(what)). Give this server the same secret as the servers that created \
                    them, in STRATA_KEY_SECRET or in the file --key-secret-file names.
                    """)
            }
            return derived
        case .file:
            // Also with a secret: keys sealed with a file before the secret was introduced open until they expire.
            guard let file = try KeyEncryptionKey.file(in: dataDirectory, create: false, logger: logger) else { throw missingFile }
            guard file.check == keyCheck else {
                throw ConfigurationError("""
                    \(filePath) is not the key-encryption key the token signing keys in the system database were sealed \
                    with (\(what)). Copy key-encryption.key from the data directory of the server that created \
                    them to \(filePath) (mode 0600), or give every server the same STRATA_KEY_SECRET and run \
                    `strata keys rotate` with it.
                    """)
            }
            return file
        case nil:
            throw ConfigurationError("\(what) in the system database is sealed in a way this Strata does not know (\(sealedBy)); is a newer Strata sharing the database?")
        }
    }

    static let secretMissing = ConfigurationError("""
        The token signing keys in the system database are sealed with a key secret, and this server was given none. \
        Give it the same secret as the servers that created them: in the environment variable STRATA_KEY_SECRET, or \
        in a file named by --key-secret-file (STRATA_KEY_SECRET_FILE).
        """)

    private var missingFile: ConfigurationError {
        ConfigurationError("""
            The token signing keys in the system database are sealed with a key-encryption.key file, and \(filePath) \
            does not exist. Copy key-encryption.key from the data directory of the server that created them to \
            \(filePath) (mode 0600).
            """)
    }
}
