import Foundation
import StrataStorage

/// The operator's secret that seals the token signing keys in the system database
/// (`STRATA_KEY_SECRET`, or the file `--key-secret-file` names).
///
/// Servers given the same secret share the keys with nothing on their disks; without it each
/// server needs a copy of `key-encryption.key` from its data directory. Its description names only
/// where it came from, so that a configuration can be logged.
public struct KeySecret: Sendable, CustomStringConvertible {
    let bytes: [UInt8]
    /// Where it came from, for messages: `STRATA_KEY_SECRET`, `the file /run/secrets/strata-key`.
    public let source: String

    /// A shorter secret would be guessable from a database dump; 16 characters of a password
    /// generator or `openssl rand -base64 32` are enough.
    public static let minimumLength = 16

    /// - Throws: ``ConfigurationError`` when the secret is shorter than ``minimumLength`` bytes
    ///   (one trailing newline, as a file ends, does not count).
    public init(_ text: String, source: String) throws {
        var text = text
        if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
        guard text.utf8.count >= Self.minimumLength else {
            throw ConfigurationError("the key secret in \(source) is shorter than \(Self.minimumLength) bytes; use a long random one, e.g. from `openssl rand -base64 32`")
        }
        self.bytes = Array(text.utf8)
        self.source = source
    }

    public var description: String { "the key secret from \(source)" }
}

/// The algorithm of a token signing key.
public enum TokenAlgorithm: String, Sendable, CaseIterable, CustomStringConvertible {
    /// HMAC with SHA-256: a shared secret that only Strata's servers hold; nothing is published.
    case hs256 = "HS256"
    /// ECDSA on P-256: its public key is published at `/.well-known/jwks.json`, so other services
    /// can check Strata's tokens without being able to issue them.
    case es256 = "ES256"

    /// `HS256` or `ES256`, in any case.
    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }

    public var description: String { rawValue }
}
