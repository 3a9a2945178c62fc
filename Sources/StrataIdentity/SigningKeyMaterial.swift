import Crypto
import Foundation
import JWTKit
import StrataCore

/// An opened token signing key: what is sealed in the system database (64 random bytes of HMAC
/// key, or the 32-byte private scalar of a P-256 key) with its kid and algorithm.
struct SigningKeyMaterial: Sendable {
    let kid: String
    let algorithm: TokenAlgorithm
    let secret: [UInt8]

    /// A new random key with a new kid (`hs256-…`, `es256-…`).
    static func generate(_ algorithm: TokenAlgorithm) -> SigningKeyMaterial {
        let kid = "\(algorithm.rawValue.lowercased())-\(RandomSecret.token(bytes: 9))"
        switch algorithm {
        case .hs256: return SigningKeyMaterial(kid: kid, algorithm: algorithm, secret: RandomSecret.bytes(64))
        case .es256: return SigningKeyMaterial(kid: kid, algorithm: algorithm, secret: Array(P256.Signing.PrivateKey().rawRepresentation))
        }
    }

    /// The key of a data directory's `auth-signing.key`; its kid is derived from the key, so that
    /// importing the same file twice finds the first import.
    static func legacy(_ key: [UInt8]) -> SigningKeyMaterial {
        let digest = SHA256.hash(data: key).prefix(6).map { String(format: "%02x", $0) }.joined()
        return SigningKeyMaterial(kid: "legacy-\(digest)", algorithm: .hs256, secret: key)
    }

    var isLegacy: Bool { kid.hasPrefix("legacy-") }

    /// The public JWK of an ES256 key (RFC 7517/7518): `kty`, `crv`, `x`, `y`, `kid`, `alg`, `use`.
    /// Nil for HS256, whose key is secret whole.
    func publicJWK() throws -> String? {
        guard algorithm == .es256 else { return nil }
        let point = Array(try P256.Signing.PrivateKey(rawRepresentation: secret).publicKey.rawRepresentation)
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in [("kty", "EC"), ("crv", "P-256"), ("x", RandomSecret.base64URL(point.prefix(32))),
                              ("y", RandomSecret.base64URL(point.suffix(32))), ("kid", kid), ("alg", "ES256"), ("use", "sig")] {
            writer.key(name)
            writer.string(value)
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A key collection holding only this key, under its kid (and as the default, for the kid-less
    /// tokens a legacy key signed).
    func keyCollection() async throws -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        let kid = JWKIdentifier(string: kid)
        switch algorithm {
        case .hs256:
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: kid)
        case .es256:
            await keys.add(ecdsa: try ES256PrivateKey(key: RandomSecret.base64URL(secret)), kid: kid)
        }
        return keys
    }
}
