import Foundation
import Logging

/// The HMAC key that servers before shared keys kept in their data directory (`auth-signing.key`).
///
/// Read once, at the first start with keys in the system database: it is imported there (so that
/// the tokens it signed keep verifying) and the file is renamed to `auth-signing.key.imported`,
/// which nothing reads; renaming it back lets an older Strata start with it again.
enum SigningKey {
    static let fileName = "auth-signing.key"
    static let importedSuffix = ".imported"
    static let byteCount = 64

    static func path(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(fileName)
    }

    /// The key of the file in `directory`, nil when there is none.
    static func legacy(in directory: String, logger: Logger) throws -> [UInt8]? {
        let path = Self.path(in: directory)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try SecretFile.read(at: path, what: "signing key", logger: logger)
    }

    /// Called once the key is in the system database.
    static func markImported(in directory: String) throws {
        let path = Self.path(in: directory)
        try? FileManager.default.removeItem(atPath: path + importedSuffix)
        try FileManager.default.moveItem(atPath: path, toPath: path + importedSuffix)
    }
}
