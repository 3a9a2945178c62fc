import Foundation
import Logging

/// The HMAC key Strata signs its access tokens with: 64 random bytes generated at first start and
/// kept in the data directory, readable by the owner only (0600), so that tokens survive restarts.
enum SigningKey {
    static let fileName = "auth-signing.key"
    static let byteCount = 64

    /// Reads the key file in `directory`, creating it first when it does not exist.
    ///
    /// The new file is written under a temporary name with mode 0600 and then hard-linked to its
    /// final name, which fails if another process (a second server, a CLI command) got there first;
    /// the loser reads the winner's complete file, never a half-written one.
    static func loadOrCreate(in directory: String, logger: Logger) throws -> [UInt8] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(fileName)
        if !FileManager.default.fileExists(atPath: path) {
            try create(at: path)
        }
        return try read(at: path, logger: logger)
    }

    private static func create(at path: String) throws {
        let temporary = path + ".\(UUID().uuidString.prefix(8)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw ConfigurationError("cannot create the signing key file \(temporary): errno \(errno)") }
        let text = Array((Data(RandomSecret.bytes(byteCount)).base64EncodedString() + "\n").utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        defer { unlink(temporary) }
        guard written == text.count, synced == 0 else {
            throw ConfigurationError("cannot write the signing key file \(temporary)")
        }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw ConfigurationError("cannot create the signing key file \(path): errno \(errno)")
        }
    }

    private static func read(at path: String, logger: Logger) throws -> [UInt8] {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        if permissions & 0o077 != 0 {
            // Someone widened the permissions; the key signs every token, so narrow them again.
            logger.warning("The signing key file was readable by others; its permissions are now 0600", metadata: ["file": .string(path)])
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: text), data.count >= 32 else {
            throw ConfigurationError("the signing key file \(path) does not hold a base64 key of at least 32 bytes")
        }
        return Array(data)
    }
}
