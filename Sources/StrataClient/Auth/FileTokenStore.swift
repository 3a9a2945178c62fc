import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps tokens in a JSON file that only its owner can read or write (mode 0600, in a directory
/// created with 0700), one entry per account, so that one file holds the tokens for several servers.
///
/// The `strata` CLI uses `~/.config/strata/credentials` with the server URL as the account.
/// Writes replace the file atomically, so a crash never leaves half a file.
public struct FileTokenStore: TokenStore {
    /// The credentials file.
    public let fileURL: URL
    /// The entry this store reads and writes, such as `http://127.0.0.1:8080`.
    public let account: String

    /// A store for `account`'s entry in the file at `fileURL`, which need not exist yet.
    public init(fileURL: URL, account: String) {
        self.fileURL = fileURL
        self.account = account
    }

    public func loadTokens() async throws -> Tokens? {
        try readAll()[account]
    }

    public func saveTokens(_ tokens: Tokens?) async throws {
        var all = try readAll()
        all[account] = tokens
        try write(all)
    }

    /// Every account in the file.
    public func accounts() throws -> [String] {
        try readAll().keys.sorted()
    }

    private func readAll() throws -> [String: Tokens] {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return [:] }
        let data = try Data(contentsOf: fileURL)
        guard !data.isEmpty else { return [:] }
        return try JSONDecoder.tokens.decode([String: Tokens].self, from: data)
    }

    private func write(_ all: [String: Tokens]) throws {
        let manager = FileManager.default
        let directory = fileURL.deletingLastPathComponent()
        if !manager.fileExists(atPath: directory.path) {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if all.isEmpty {
            if manager.fileExists(atPath: fileURL.path) { try manager.removeItem(at: fileURL) }
            return
        }
        let data = try JSONEncoder.tokens.encode(all)
        // Write a temporary file created with mode 0600 (so the tokens are never readable by others,
        // not even for a moment) and rename it over the old one: readers see the old or the new file.
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString.prefix(8))")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EACCES) }
        let written = data.withUnsafeBytes { buffer in
            buffer.baseAddress.map { Glue.write(descriptor, $0, buffer.count) } ?? 0
        }
        let syncFailed = fsync(descriptor) != 0
        close(descriptor)
        guard written == data.count, !syncFailed, rename(temporary.path, fileURL.path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            unlink(temporary.path)
            throw POSIXError(code)
        }
    }
}

/// The C `write`, which `FileTokenStore`'s own method names would shadow.
private enum Glue {
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }
}

extension JSONEncoder {
    static var tokens: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var tokens: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
