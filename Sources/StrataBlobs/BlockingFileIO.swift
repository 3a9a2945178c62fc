import Foundation
import NIOCore
import NIOPosix
import StrataStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the filesystem store needs, each run on the blob files' own
/// thread pool (``BlockingPools/files``), so that waiting for the disk never blocks an event loop,
/// a cooperative thread or SQLite's queries.
///
/// Plain descriptors rather than a file-handle type: an open object (``FileObjectReader``) must
/// close itself when the last reference goes, whether or not its response was ever written.
enum BlockingFileIO {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingPools.files.runIfActive(body)
    }

    /// Creates a new file (never an existing one) for writing, readable by its owner only.
    static func create(_ path: String) async throws -> Int32 {
        try await run {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw error("creating \(path)") }
            return descriptor
        }
    }

    /// Opens a file for reading; nil when it does not exist.
    static func openForReading(_ path: String) async throws -> Int32? {
        try await run {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor < 0 {
                if errno == ENOENT { return nil }
                throw error("opening \(path)")
            }
            return descriptor
        }
    }

    /// Writes all of `buffer` at `offset`, however many calls it takes.
    static func write(_ descriptor: Int32, _ buffer: ByteBuffer, at offset: Int64) async throws {
        try await run {
            try buffer.withUnsafeReadableBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw error("writing")
                    }
                    done += written
                }
            }
        }
    }

    /// Up to `length` bytes at `offset`; fewer only at the end of the file.
    static func read(_ descriptor: Int32, at offset: Int64, length: Int) async throws -> ByteBuffer {
        try await run {
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { bytes in
                var done = 0
                while done < length {
                    let count = pread(descriptor, bytes.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw error("reading")
                    }
                    if count == 0 { break }
                    done += count
                }
                return done
            }
            return buffer
        }
    }

    static func size(_ descriptor: Int32) throws -> Int64 {
        // lseek rather than fstat: `struct stat` belongs to whichever C module read <sys/stat.h> first
        // (CoreFoundation in release builds, CDispatch or Glibc in others), and MemberImportVisibility
        // then refuses its members in some builds. Reads use pread, so the file position does not matter.
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { throw error("reading the size") }
        return Int64(end)
    }

    /// Flushes a file's data to the disk: a stored object must survive a power cut once its row
    /// is committed, or the row would name content that is not there.
    static func synchronize(_ descriptor: Int32) async throws {
        try await run {
            guard fsync(descriptor) == 0 else { throw error("flushing") }
        }
    }

    /// Renames `from` to `to` (atomic within one filesystem), then flushes the directory so that
    /// the new name is durable too.
    static func move(_ from: String, to: String) async throws {
        try await run {
            guard rename(from, to) == 0 else { throw error("renaming \(from)") }
            let directory = open((to as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                _ = fsync(directory)
                _ = close(directory)
            }
        }
    }

    /// An error naming the operation and the system's reason; ENOSPC becomes ``BlobStoreError/noSpace``.
    static func error(_ operation: String) -> BlobStoreError {
        let code = errno
        if code == ENOSPC || code == EDQUOT { return .noSpace }
        return .io("\(operation): \(String(cString: strerror(code)))")
    }
}
