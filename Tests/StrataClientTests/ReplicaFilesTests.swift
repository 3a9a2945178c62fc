import Foundation
@testable import StrataClient
import StrataCore
import Testing

/// The replica's files: a crash at any byte of a write leaves the state before or after it.
@Suite("Replica files")
struct ReplicaFilesTests {
    private func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("replica-files-\(UUID().uuidString)")
    }

    @Test("Records and a snapshot read back; a second opener is refused while the first holds the lock")
    func roundTrip() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let files = try ReplicaFiles(directory: folder)
            #expect(try files.read().snapshot == nil)
            try files.append(Array("one".utf8))
            try files.append(Array("two".utf8))
            #expect(throws: ReplicaError.self) { _ = try ReplicaFiles(directory: folder) }
            try files.compact(Array("state after two".utf8))
            try files.append(Array("three".utf8))
            files.release()
        }
        let files = try ReplicaFiles(directory: folder)
        let contents = try files.read()
        #expect(contents.snapshot == Array("state after two".utf8))
        #expect(contents.records == [Array("three".utf8)])
    }

    @Test("A journal cut at every byte of its last record reads as the records before it, and appends go on after")
    func tornTail() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = (0 ..< 3).map { Array("record \($0) with some payload".utf8) }
        do {
            let files = try ReplicaFiles(directory: folder)
            _ = try files.read()
            for record in records { try files.append(record) }
            files.release()
        }
        let journal = folder.appendingPathComponent(ReplicaFiles.journalName)
        let whole = try Data(contentsOf: journal)
        let lastLength = ReplicaFiles.frameRecord(records[2], sequence: 3).count
        for cut in (whole.count - lastLength) ..< whole.count {
            try whole.prefix(cut).write(to: journal)
            let files = try ReplicaFiles(directory: folder)
            #expect(try files.read().records == Array(records.prefix(2)), "cut at \(cut)")
            try files.append(Array("after".utf8))
            files.release()
            let again = try ReplicaFiles(directory: folder)
            #expect(try again.read().records == Array(records.prefix(2)) + [Array("after".utf8)], "cut at \(cut)")
            again.release()
        }
    }

    @Test("A flipped bit ends the journal there; a damaged snapshot is reported, not half read")
    func damage() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let files = try ReplicaFiles(directory: folder)
            _ = try files.read()
            try files.append(Array("first".utf8))
            try files.append(Array("second".utf8))
            files.release()
        }
        let journal = folder.appendingPathComponent(ReplicaFiles.journalName)
        var bytes = try Data(contentsOf: journal)
        bytes[bytes.count - 2] ^= 0x10
        try bytes.write(to: journal)
        do {
            let files = try ReplicaFiles(directory: folder)
            #expect(try files.read().records == [Array("first".utf8)])
            try files.compact(Array("snapshot".utf8))
            files.release()
        }
        let snapshot = folder.appendingPathComponent(ReplicaFiles.snapshotName)
        var snapshotBytes = try Data(contentsOf: snapshot)
        snapshotBytes[snapshotBytes.count - 1] ^= 0x01
        try snapshotBytes.write(to: snapshot)
        let files = try ReplicaFiles(directory: folder)
        #expect { try files.read() } throws: { ($0 as? ReplicaError)?.kind == .damaged }
    }

    @Test("Records a crash left behind after a new snapshot was renamed in are skipped by their sequence numbers")
    func staleJournal() throws {
        let folder = directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = folder.appendingPathComponent(ReplicaFiles.journalName)
        let kept: Data
        do {
            let files = try ReplicaFiles(directory: folder)
            _ = try files.read()
            try files.append(Array("a".utf8))
            try files.append(Array("b".utf8))
            kept = try Data(contentsOf: journal)
            try files.compact(Array("after a and b".utf8))
            files.release()
        }
        // As if the process stopped between renaming the snapshot and emptying the journal.
        try kept.write(to: journal)
        let files = try ReplicaFiles(directory: folder)
        let contents = try files.read()
        #expect(contents.snapshot == Array("after a and b".utf8))
        #expect(contents.records.isEmpty)
        try files.append(Array("c".utf8))
        files.release()
        let again = try ReplicaFiles(directory: folder)
        #expect(try again.read().records == [Array("c".utf8)])
    }
}
