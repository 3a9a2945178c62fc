import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A replica's directory as it was before the local database: a snapshot and a journal of what
/// happened since, both of Strata's own format. Read once to convert the directory
/// (``ReplicaLegacyConversion``); the tests write one with it.
///
/// - `snapshot` holds a whole state, written to `snapshot.tmp`, flushed, and renamed over the old
///   one: it is the old or the new, never a mix.
/// - `journal` holds records appended after the snapshot, each framed as length (4 bytes), CRC-32
///   (4 bytes), sequence number (8 bytes) and payload, and flushed before ``append(_:)`` returns. A
///   record cut short or damaged by a crash, and everything after it, is cut off on open: the state
///   is the one after the last whole record.
/// - The snapshot names the sequence number of the last record it contains, so records that a
///   crash between renaming the snapshot and emptying the journal left behind are skipped.
/// - `lock` is held (``ReplicaLock``) while the directory is open.
///
/// The payloads are opaque here; ``ReplicaJournalState`` gives them meaning.
final class ReplicaFiles: @unchecked Sendable {
    // @unchecked: the file descriptors are only used by the one actor that owns this object
    // (``Replica``); no method is called from two tasks at once.
    let directory: URL
    private var journal: Int32 = -1
    private var lock: ReplicaLock?
    private var nextSequence: UInt64 = 1
    private(set) var journalSize: Int = 0

    static let snapshotName = "snapshot", journalName = "journal", lockName = ReplicaLock.fileName
    private static let magic = Array("STRATA-REPLICA-1\n".utf8)

    /// What was on disk: the snapshot's payload (nil for a new replica) and the journal's records after it.
    struct Contents {
        var snapshot: [UInt8]?
        var records: [[UInt8]]
    }

    /// Opens (creating) the directory and takes its lock; with `lock`, uses the lock the caller
    /// holds (and leaves it to the caller).
    init(directory: URL, lock: ReplicaLock? = nil) throws(ReplicaError) {
        self.directory = directory
        if lock == nil { self.lock = try ReplicaLock(directory: directory) }
    }

    deinit {
        release()
    }

    /// Closes the journal and gives up the lock it took; the directory can be opened again.
    func release() {
        if journal >= 0 { close(journal) }
        journal = -1
        lock?.release()
        lock = nil
    }

    /// Whether the directory holds a replica of this format.
    static func exists(in directory: URL) -> Bool {
        [snapshotName, journalName].contains { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
    }

    /// Removes the snapshot and the journal (after their contents went into the database).
    static func remove(from directory: URL) {
        for name in [snapshotName, snapshotName + ".tmp", journalName] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Reads the snapshot and the whole records of the journal after it, cutting a torn tail off
    /// the file, and opens the journal for appending.
    func read() throws(ReplicaError) -> Contents {
        var contents = Contents(snapshot: nil, records: [])
        var snapshotSequence: UInt64 = 0
        if let bytes = try readFile(Self.snapshotName) {
            guard let (sequence, payload) = Self.unframeSnapshot(bytes) else {
                throw ReplicaError(.damaged, "the snapshot in \(directory.path) is damaged; delete the directory to download the replica again")
            }
            contents.snapshot = payload
            snapshotSequence = sequence
        }
        nextSequence = snapshotSequence + 1
        let journalBytes = try readFile(Self.journalName) ?? []
        var offset = 0
        while let (sequence, payload, length) = Self.unframeRecord(journalBytes, at: offset) {
            offset += length
            if sequence > snapshotSequence {
                contents.records.append(payload)
                nextSequence = sequence + 1
            }
        }
        journal = open(directory.appendingPathComponent(Self.journalName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard journal >= 0 else { throw ReplicaError(.storage, "cannot open the journal in \(directory.path): \(Self.errnoText)") }
        if offset < journalBytes.count {
            // A torn or damaged tail: the state is the one after the last whole record.
            guard ftruncate(journal, off_t(offset)) == 0, fsync(journal) == 0 else {
                throw ReplicaError(.storage, "cannot cut the damaged end off the journal: \(Self.errnoText)")
            }
        }
        journalSize = offset
        guard lseek(journal, off_t(offset), SEEK_SET) >= 0 else { throw ReplicaError(.storage, "cannot seek in the journal: \(Self.errnoText)") }
        return contents
    }

    /// Appends a record and flushes it to the disk before returning.
    func append(_ payload: [UInt8]) throws(ReplicaError) {
        guard journal >= 0 else { throw ReplicaError(.closed, "the replica was closed; open it again") }
        let frame = Self.frameRecord(payload, sequence: nextSequence)
        try writeAll(journal, frame, what: "the journal")
        guard fsync(journal) == 0 else { throw ReplicaError(.storage, "cannot flush the journal: \(Self.errnoText)") }
        nextSequence += 1
        journalSize += frame.count
    }

    /// Replaces the snapshot with `payload` (the state after every record so far) and empties the journal.
    func compact(_ payload: [UInt8]) throws(ReplicaError) {
        let temporary = directory.appendingPathComponent(Self.snapshotName + ".tmp").path
        let target = directory.appendingPathComponent(Self.snapshotName).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ReplicaError(.storage, "cannot write the snapshot: \(Self.errnoText)") }
        defer { close(descriptor) }
        try writeAll(descriptor, Self.frameSnapshot(payload, sequence: nextSequence - 1), what: "the snapshot")
        guard fsync(descriptor) == 0 else { throw ReplicaError(.storage, "cannot flush the snapshot: \(Self.errnoText)") }
        guard rename(temporary, target) == 0 else { throw ReplicaError(.storage, "cannot replace the snapshot: \(Self.errnoText)") }
        syncDirectory()
        // The records are in the snapshot now; were the process to stop before this, they would be
        // skipped on open by their sequence numbers.
        guard ftruncate(journal, 0) == 0, lseek(journal, 0, SEEK_SET) >= 0, fsync(journal) == 0 else {
            throw ReplicaError(.storage, "cannot empty the journal: \(Self.errnoText)")
        }
        journalSize = 0
    }

    // MARK: Framing

    static func frameRecord(_ payload: [UInt8], sequence: UInt64) -> [UInt8] {
        var body = bytes(of: sequence)
        body += payload
        return bytes(of: UInt32(body.count)) + bytes(of: CRC32.checksum(body)) + body
    }

    /// The record at `offset`: its sequence, payload and framed length; nil when it is cut short or damaged.
    static func unframeRecord(_ bytes: [UInt8], at offset: Int) -> (UInt64, [UInt8], Int)? {
        guard bytes.count - offset >= 8 else { return nil }
        let length = Int(integer(bytes, at: offset) as UInt32)
        let checksum: UInt32 = integer(bytes, at: offset + 4)
        guard length >= 8, bytes.count - offset - 8 >= length else { return nil }
        let body = Array(bytes[(offset + 8) ..< (offset + 8 + length)])
        guard CRC32.checksum(body) == checksum else { return nil }
        return (integer(body, at: 0), Array(body[8...]), length + 8)
    }

    static func frameSnapshot(_ payload: [UInt8], sequence: UInt64) -> [UInt8] {
        magic + frameRecord(payload, sequence: sequence)
    }

    static func unframeSnapshot(_ bytes: [UInt8]) -> (UInt64, [UInt8])? {
        guard bytes.starts(with: magic), let (sequence, payload, length) = unframeRecord(bytes, at: magic.count),
              magic.count + length == bytes.count else { return nil }
        return (sequence, payload)
    }

    private static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int) -> T {
        var value: T = 0
        for index in 0 ..< MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }

    // MARK: Files

    private func readFile(_ name: String) throws(ReplicaError) -> [UInt8]? {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReplicaError(.storage, "cannot read \(name) in \(directory.path)")
        }
        return Array(data)
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8], what: String) throws(ReplicaError) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { buffer in
                #if canImport(Glibc) || canImport(Musl)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReplicaError(.storage, "cannot write \(what): \(Self.errnoText)")
            }
            written += count
        }
    }

    /// Makes the rename durable: the directory entry is flushed too.
    private func syncDirectory() {
        let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static var errnoText: String { String(cString: strerror(errno)) }
}

/// CRC-32 (IEEE 802.3, the one of zip and PNG): whether a journal record came back as written.
enum CRC32 {
    private static let table: [UInt32] = (0 ..< 256).map { index in
        var value = UInt32(index)
        for _ in 0 ..< 8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
