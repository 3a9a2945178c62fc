import Foundation
import Logging
import StrataStorage

/// A file of random bytes (base64, one line) that only its owner may read (0600): the
/// key-encryption key of a data directory, and before it the signing key.
enum SecretFile {
    /// Reads the file at `path`, creating it with `byteCount` random bytes first when it does not exist.
    ///
    /// The new file is written under a temporary name with mode 0600 and then hard-linked to its
    /// final name, which fails if another process (a second server, a CLI command) got there first;
    /// the loser reads the winner's complete file, never a half-written one.
    static func loadOrCreate(at path: String, byteCount: Int, what: String, logger: Logger) throws -> [UInt8] {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) {
            try create(at: path, bytes: RandomSecret.bytes(byteCount), what: what)
        }
        return try read(at: path, what: what, logger: logger)
    }

    static func create(at path: String, bytes: [UInt8], what: String) throws {
        let temporary = path + ".\(UUID().uuidString.prefix(8)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw ConfigurationError("cannot create the \(what) file \(temporary): errno \(errno)") }
        let text = Array((Data(bytes).base64EncodedString() + "\n").utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        defer { unlink(temporary) }
        guard written == text.count, synced == 0 else {
            throw ConfigurationError("cannot write the \(what) file \(temporary)")
        }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw ConfigurationError("cannot create the \(what) file \(path): errno \(errno)")
        }
    }

    /// Reads a base64 key of at least 32 bytes; permissions wider than 0600 are narrowed first.
    static func read(at path: String, what: String, logger: Logger) throws -> [UInt8] {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        if permissions & 0o077 != 0 {
            // Someone widened the permissions; the key guards every token, so narrow them again.
            logger.warning("The \(what) file was readable by others; its permissions are now 0600", metadata: ["file": .string(path)])
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: text), data.count >= 32 else {
            throw ConfigurationError("the \(what) file \(path) does not hold a base64 key of at least 32 bytes")
        }
        return Array(data)
    }
}
