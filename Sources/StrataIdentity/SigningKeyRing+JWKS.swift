import Foundation
import StrataCore
import StrataStorage

extension SigningKeyRing {
    /// `/.well-known/jwks.json`: the public keys of the ES256 keys that verify at `now`; HMAC keys
    /// have no public side and are never published.
    package func jwks(now: Date) throws -> [UInt8] {
        let seconds = AuthStore.seconds(now)
        let published = try snapshot().entries.values
            .filter { $0.material.algorithm == .es256 && store.verifies($0.stored, at: seconds) }
            .sorted { ($0.stored.createdAt, $0.stored.retiredAt ?? .max, $0.stored.kid) > ($1.stored.createdAt, $1.stored.retiredAt ?? .max, $1.stored.kid) }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("keys")
        writer.beginArray()
        for entry in published {
            if let jwk = entry.stored.publicJWK { writer.raw(jwk) }
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
