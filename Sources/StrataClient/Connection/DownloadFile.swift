import Foundation

/// The file a response body is written to as it arrives: a hidden temporary file beside the
/// destination (same directory, so the final move is a rename on the same volume), which takes
/// the destination's place only when the whole body is there — or, `inPlace`, the destination
/// itself, for a reader that follows the file while it grows (the offline replica's download).
///
/// Used by one transfer on the connection's executor only, so it needs no locking.
final class DownloadFile {
    let destination: URL
    private let temporary: URL
    private let handle: FileHandle
    private var closed = false

    private let inPlace: Bool

    init(destination: URL, inPlace: Bool = false) throws {
        self.destination = destination
        self.inPlace = inPlace
        let directory = destination.deletingLastPathComponent()
        temporary = inPlace ? destination
            : directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).download")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        handle = try FileHandle(forWritingTo: temporary)
    }

    func write(_ data: Data) throws {
        try handle.write(contentsOf: data)
    }

    /// Closes the file and moves it into place, replacing what was there.
    func commit() throws {
        try close()
        if inPlace { return }
        if FileManager.default.fileExists(atPath: destination.path) {
            _ = try FileManager.default.replaceItemAt(destination, withItemAt: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: destination)
        }
    }

    /// Closes and removes the temporary file; the destination stays as it was (written in place,
    /// the destination is that file, and a partial body goes with it).
    func discard() {
        try? close()
        try? FileManager.default.removeItem(at: temporary)
    }

    private func close() throws {
        guard !closed else { return }
        closed = true
        try handle.close()
    }
}
