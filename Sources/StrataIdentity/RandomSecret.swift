import StrataCore
import Crypto
import Foundation

/// Random secrets: refresh tokens, session ids, the signing key, generated passwords.
package enum RandomSecret {
    /// Random bytes from the system's cryptographically secure generator (getrandom on Linux).
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `count` random bytes as unpadded base64url text.
    static func token(bytes count: Int) -> String {
        base64URL(bytes(count))
    }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Base64URL.encode(Array(bytes))
    }

    /// The hex SHA-256 of a token's text: what the database keeps instead of the token.
    package static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// A password people can type: 20 characters from an alphabet without look-alikes (~114 bits).
    package static func password() -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
