import ArgumentParser
import Foundation
import StrataServer
import StrataIdentity
import StrataStorage

/// The options of token signing keys, also read by `strata keys`: the algorithm of the first key,
/// and the secret that seals the keys in the system database (docs/KEYS.md).
extension ServeOptions {
    static let tokenAlgorithm: ServeOption<String> = ServeOption(
        flag: "token-algorithm", valueName: "A", variable: "STRATA_TOKEN_ALGORITHM", defaultValue: .literal("HS256"),
        summary: "`HS256` or `ES256` (public key at `/.well-known/jwks.json`) for the first token signing key; then `strata keys rotate`",
        given: { $0.tokenAlgorithm }, parse: { $0 },
        apply: { value, setup in
            guard let algorithm = TokenAlgorithm(name: value) else { throw ValidationError("--token-algorithm must be HS256 or ES256, not \(value)") }
            setup.configuration.auth.tokenAlgorithm = algorithm
        })

    /// A file, so that the secret is never on a command line, where `ps` shows it.
    static let keySecretFile: ServeOption<String> = ServeOption(
        flag: "key-secret-file", valueName: "FILE", variable: "STRATA_KEY_SECRET_FILE", defaultValue: .none,
        summary: "file with the secret that seals the signing keys in the system database (else `DIR/key-encryption.key`; docs/KEYS.md)",
        given: { $0.keySecretFile }, parse: { $0 },
        apply: { path, setup in
            guard setup.configuration.auth.keySecret == nil else {
                throw ValidationError("give the key secret once: in STRATA_KEY_SECRET or in --key-secret-file, not both")
            }
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read the key secret file \(path): \(error.localizedDescription)")
            }
            setup.configuration.auth.keySecret = try ServeOptionValues.keySecret(text, source: "the file \(path)")
        })

    /// Environment only: a flag would show the secret to `ps`.
    static let keySecret: ServeOption<String> = ServeOption(
        variable: "STRATA_KEY_SECRET", defaultValue: .none,
        summary: "that secret itself, at least 16 bytes",
        given: { _ in nil }, parse: { $0 },
        apply: { text, setup in
            guard setup.configuration.auth.keySecret == nil else {
                throw ValidationError("give the key secret once: in STRATA_KEY_SECRET or in --key-secret-file, not both")
            }
            setup.configuration.auth.keySecret = try ServeOptionValues.keySecret(text, source: "STRATA_KEY_SECRET")
        })
}

extension ServeOptionValues {
    static func keySecret(_ text: String, source: String) throws -> KeySecret {
        do {
            return try KeySecret(text, source: source)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
