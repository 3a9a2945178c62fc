import Foundation
import StrataStorage

/// A secret as the system database keeps it: AES-GCM under the key-encryption key that seals the
/// token signing keys, with which key it was and that key's check value.
package struct SealedSecret: Sendable, Hashable {
    var sealed: String
    var sealedBy: String
    var keyCheck: String
}

extension SigningKeys {
    /// Seals a secret with the key new signing keys are sealed with, so that every server able to
    /// open the signing keys opens it too. `context` binds it to its use (`provider:NAME`).
    package func seal(_ secret: String, context: String) async throws -> SealedSecret {
        let key = try encryption.sealingKey(existing: try await system.signingKeys())
        return SealedSecret(sealed: try key.seal(Array(secret.utf8), context: context), sealedBy: key.source.rawValue, keyCheck: key.check)
    }

    /// Opens a sealed secret; throws an error that names `what` when this server lacks its key or
    /// the text was changed.
    package func open(_ secret: SealedSecret, context: String, what: String) throws -> String {
        let key = try encryption.openingKey(sealedBy: secret.sealedBy, keyCheck: secret.keyCheck, what: what)
        guard let bytes = key.open(secret.sealed, context: context), let text = String(bytes: bytes, encoding: .utf8) else {
            throw ConfigurationError("\(what) in the system database does not open: it was changed or damaged; set it again.")
        }
        return text
    }
}
