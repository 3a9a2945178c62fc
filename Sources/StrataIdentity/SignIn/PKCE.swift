import Crypto
import StrataCore

/// Proof Key for Code Exchange (RFC 7636), S256 only: Strata's toward providers, and the app's
/// toward Strata.
package enum PKCE {
    /// A new verifier: 32 random bytes, 43 characters of base64url.
    static func verifier() -> String { RandomSecret.token(bytes: 32) }

    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// Whether text has a verifier's or challenge's form: 43 to 128 unreserved characters.
    package static func isWellFormed(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): return true
            default: return false
            }
        }
    }

    /// Whether `verifier` meets `challenge`, compared in constant time.
    static func verifies(_ verifier: String, challenge: String) -> Bool {
        guard isWellFormed(verifier) else { return false }
        let expected = Array(self.challenge(for: verifier).utf8), given = Array(challenge.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
