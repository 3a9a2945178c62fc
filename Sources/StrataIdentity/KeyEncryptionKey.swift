import Crypto
import Foundation
import Logging
import StrataStorage

/// The AES-256 key that seals token signing keys in the system database, and how it was obtained.
///
/// Derived with HKDF-SHA256 from the operator's ``KeySecret``, or 32 random bytes generated once
/// into `key-encryption.key` in the data directory (mode 0600). Each sealed key records which of the
/// two sealed it and a check value of the key, so that a server given the wrong one says so at start.
struct KeyEncryptionKey: Sendable {
    enum Source: String, Sendable {
        case secret
        case file
    }

    let key: SymmetricKey
    let source: Source

    static let fileName = "key-encryption.key"
    private static let salt = Array("strata.signing-keys.salt".utf8)
    private static let info = Array("strata.signing-keys.aes-256-gcm.v1".utf8)

    static func derived(from secret: KeySecret) -> KeyEncryptionKey {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret.bytes), salt: salt, info: info, outputByteCount: 32)
        return KeyEncryptionKey(key: key, source: .secret)
    }

    static func path(in dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent(fileName)
    }

    /// The data directory's key file, created first when `create` is set and there is none;
    /// nil when there is none and `create` is not set.
    static func file(in dataDirectory: String, create: Bool, logger: Logger) throws -> KeyEncryptionKey? {
        let path = Self.path(in: dataDirectory)
        guard create || FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes = try SecretFile.loadOrCreate(at: path, byteCount: 32, what: "key-encryption key", logger: logger)
        return KeyEncryptionKey(key: SymmetricKey(data: bytes.prefix(32)), source: .file)
    }

    /// A value that tells this key from another without revealing it: 8 bytes of an HMAC of a fixed text, in hex.
    var check: String {
        HMAC<SHA256>.authenticationCode(for: Array("strata.key-check.v1".utf8), using: key).prefix(8)
            .map { String(format: "%02x", $0) }.joined()
    }

    /// Seals `material`; the kid and algorithm are authenticated with it, so a sealed key cannot be
    /// moved to another row.
    func seal(_ material: [UInt8], kid: String, algorithm: TokenAlgorithm) throws -> String {
        let box = try AES.GCM.seal(material, using: key, authenticating: Self.associatedData(kid, algorithm))
        guard let combined = box.combined else { throw ConfigurationError("AES-GCM gave no sealed box") }
        return combined.base64EncodedString()
    }

    func open(_ sealed: String, kid: String, algorithm: TokenAlgorithm) throws -> [UInt8] {
        guard let data = Data(base64Encoded: sealed) else {
            throw ConfigurationError("the sealed signing key \(kid) in the system database is not base64")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: data)
            return Array(try AES.GCM.open(box, using: key, authenticating: Self.associatedData(kid, algorithm)))
        } catch {
            throw ConfigurationError("the signing key \(kid) in the system database does not open with its key-encryption key: it was changed or damaged; rotate the keys with `strata keys rotate`")
        }
    }

    /// Seals a secret other than a signing key (a provider's client secret, a provider's access
    /// token); `context` is authenticated with it, so it cannot be moved to another row or use.
    func seal(_ secret: [UInt8], context: String) throws -> String {
        let box = try AES.GCM.seal(secret, using: key, authenticating: Array("strata.secret:\(context)".utf8))
        guard let combined = box.combined else { throw ConfigurationError("AES-GCM gave no sealed box") }
        return combined.base64EncodedString()
    }

    /// Opens what ``seal(_:context:)`` sealed with the same context; nil when it does not open.
    func open(_ sealed: String, context: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let opened = try? AES.GCM.open(box, using: key, authenticating: Array("strata.secret:\(context)".utf8)) else { return nil }
        return Array(opened)
    }

    private static func associatedData(_ kid: String, _ algorithm: TokenAlgorithm) -> [UInt8] {
        Array("strata.signing-key:\(algorithm.rawValue):\(kid)".utf8)
    }
}
