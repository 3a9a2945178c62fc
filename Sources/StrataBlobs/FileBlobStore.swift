import Crypto
import Foundation
import Logging
import NIOCore
import StrataOData
import StrataStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blob content as files under `<data>/blobs`:
///
/// ```
/// blobs/tmp/<id>.part         an upload in progress
/// blobs/objects/<ab>/<id>     a stored object (ab: the id's first two characters)
/// ```
///
/// Files are named by random object ids, never by blob names: names may hold any text, `a` and
/// `a/b` may both exist, and no name can reach outside the directory. An upload is written to a
/// temporary file while its SHA-256 is computed, flushed, then renamed into `objects/`; only after
/// that does the catalog name it. A client that goes away mid-upload, an upload past the size
/// limit or a full disk leave nothing: the temporary file is removed at once, and whatever a crash
/// leaves is removed by ``sweep(referenced:olderThan:)`` at the next start.
struct FileBlobStore: BlobStore {
    let root: URL
    let logger: Logger
    /// Writes are gathered into pieces of this size before they go to the disk.
    static let writeChunk = 256 * 1024

    var objectsDirectory: URL { root.appendingPathComponent("objects", isDirectory: true) }
    var temporaryDirectory: URL { root.appendingPathComponent("tmp", isDirectory: true) }

    func prepare() async throws {
        for directory in [objectsDirectory, temporaryDirectory] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    func path(of object: String) -> String {
        objectsDirectory.appendingPathComponent(String(object.prefix(2)), isDirectory: true).appendingPathComponent(object).path
    }

    func write<Content: AsyncSequence>(_ content: Content, limit: Int64) async throws -> StoredObject
    where Content.Element == ByteBuffer {
        let id = BlobObjectID.make()
        let partial = temporaryDirectory.appendingPathComponent(id + ".part").path
        let descriptor = try await BlockingFileIO.create(partial)
        var isOpen = true
        do {
            var hasher = SHA256()
            var size: Int64 = 0
            var pending = ByteBufferAllocator().buffer(capacity: Self.writeChunk)
            for try await piece in content {
                size += Int64(piece.readableBytes)
                guard size <= limit else { throw BlobStoreError.tooLarge(limit: limit) }
                piece.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                var piece = piece
                pending.writeBuffer(&piece)
                if pending.readableBytes >= Self.writeChunk {
                    try await BlockingFileIO.write(descriptor, pending, at: size - Int64(pending.readableBytes))
                    pending.clear()
                }
            }
            // A body sequence may end early, without an error, when its task is cancelled (the
            // client went away): what arrived is then not the whole blob.
            try Task.checkCancellation()
            if pending.readableBytes > 0 {
                try await BlockingFileIO.write(descriptor, pending, at: size - Int64(pending.readableBytes))
            }
            try await BlockingFileIO.synchronize(descriptor)
            close(descriptor)
            isOpen = false
            let destination = path(of: id)
            try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try await BlockingFileIO.move(partial, to: destination)
            return StoredObject(id: id, size: size, sha256: Hex.lowercase(hasher.finalize()))
        } catch {
            // Synchronous on purpose: the task may be cancelled (the client went away), and the
            // thread pool refuses work for cancelled tasks; close and unlink are quick.
            if isOpen { close(descriptor) }
            unlink(partial)
            throw error
        }
    }

    func open(_ object: String) async throws -> (any BlobObjectReader)? {
        guard BlobObjectID.isValid(object), let descriptor = try await BlockingFileIO.openForReading(path(of: object)) else { return nil }
        do {
            return FileObjectReader(object: object, descriptor: descriptor, size: try BlockingFileIO.size(descriptor))
        } catch {
            close(descriptor)
            throw error
        }
    }

    func delete(_ objects: [String]) async {
        let paths = objects.filter(BlobObjectID.isValid).map(path(of:))
        guard !paths.isEmpty else { return }
        do {
            try await BlockingFileIO.run {
                for path in paths where unlink(path) != 0 && errno != ENOENT {
                    throw BlockingFileIO.error("deleting \(path)")
                }
            }
        } catch {
            logger.warning("A replaced or deleted blob's content could not be removed; the next start removes it",
                           metadata: ["error": .string("\(error)")])
        }
    }

    func sweep(referenced: Set<String>, olderThan age: Duration) async throws -> Int {
        let objects = objectsDirectory, temporary = temporaryDirectory
        let cutoff = Date().addingTimeInterval(-Double(age.components.seconds))
        return try await BlockingFileIO.run {
            let files = FileManager.default
            var removed = 0
            func removeIfOld(_ url: URL) {
                let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
                if let modified, modified < cutoff, (try? files.removeItem(at: url)) != nil { removed += 1 }
            }
            for file in (try? files.contentsOfDirectory(at: temporary, includingPropertiesForKeys: nil)) ?? [] {
                removeIfOld(file)
            }
            for folder in (try? files.contentsOfDirectory(at: objects, includingPropertiesForKeys: nil)) ?? [] {
                for file in (try? files.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
                where !referenced.contains(file.lastPathComponent) {
                    removeIfOld(file)
                }
            }
            return removed
        }
    }
}

/// An object file opened for reading. It owns the descriptor and closes it when the last
/// reference goes: after the response body has been written, or when a response is dropped
/// unwritten (the client left first). An open descriptor keeps the content readable after a
/// newer upload unlinks the file.
final class FileObjectReader: BlobObjectReader {
    let object: String
    let descriptor: Int32
    let size: Int64

    init(object: String, descriptor: Int32, size: Int64) {
        self.object = object
        self.descriptor = descriptor
        self.size = size
    }

    deinit {
        close(descriptor)
    }

    func read(at offset: Int64, length: Int) async throws -> ByteBuffer {
        let buffer = try await BlockingFileIO.read(descriptor, at: offset, length: length)
        if buffer.readableBytes == 0, length > 0 { throw BlobStoreError.truncated(object: object) }
        return buffer
    }
}
