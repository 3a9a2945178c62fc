import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The replica directory's `lock` file, held with `flock` while the replica is open: a second
/// process (or a second ``Replica`` in this one) opening the same directory is refused instead of
/// writing beside the first. The lock goes when the process does, however it ends.
final class ReplicaLock: @unchecked Sendable {
    // @unchecked: the descriptor is only used by the one actor that owns this object.
    static let fileName = "lock"
    private var descriptor: Int32 = -1

    /// Creates the directory when missing and takes its lock.
    /// - Throws: ``ReplicaError/Kind/inUse`` when it is held elsewhere, ``ReplicaError/Kind/storage``
    ///   when the directory cannot be made.
    init(directory: URL) throws(ReplicaError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ReplicaError(.storage, "cannot create the replica directory \(directory.path): \(error.localizedDescription)")
        }
        descriptor = open(directory.appendingPathComponent(Self.fileName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ReplicaError(.storage, "cannot open \(Self.fileName) in \(directory.path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            descriptor = -1
            throw ReplicaError(.inUse, "the replica in \(directory.path) is open in another process; close it there first")
        }
    }

    deinit {
        release()
    }

    /// Gives the lock up; the directory can be opened again.
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }
}
