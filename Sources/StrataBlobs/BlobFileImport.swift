import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The upgrade of a server on PostgreSQL whose blobs' content is still in files under
/// `<data>/blobs` (Strata kept it there before content moved into PostgreSQL): at start, each
/// object a blob names that a file holds is copied into the ``PostgresBlobStore`` under the same id,
/// so the catalog's rows stay as they are and every server can read it.
///
/// Streaming (a chunk in memory at a time) and idempotent: an object PostgreSQL holds whole already
/// is not copied again; a copy interrupted by a crash is a `writing` object that the sweep removes,
/// and a later start copies it again. A file is removed once its copy is complete, after which the
/// server needs nothing of `<data>/blobs`. Content that does not match the SHA-256 the catalog
/// recorded is copied as it is (and logged): the blob answers as before, a whole download that sees
/// the mismatch being cut short.
struct BlobFileImport: Sendable {
    let files: FileBlobStore
    let store: PostgresBlobStore
    let logger: Logger

    struct Report: Sendable, Equatable {
        var copied = 0
        var failed = 0
    }

    /// Whether there are files to copy: a server whose files are all copied (and whose emptied
    /// folders were removed) finds none, and reads nothing more, however many blobs it has.
    var hasFiles: Bool { !objectFiles().isEmpty }

    /// Copies the files of objects `recorded` names (object id → recorded SHA-256).
    @discardableResult
    func run(recorded: [String: String]) async -> Report {
        var report = Report()
        for object in objectFiles().sorted() {
            guard let sha256 = recorded[object] else { continue }
            do {
                guard let reader = try await files.open(object) else { continue }
                guard let copy = try await store.write(BlobObjectContent(reader: reader), limit: .max, id: object) else {
                    // Copied whole before (the file outlived it: a crash in between), or another server
                    // is copying it right now and removes the file itself.
                    if try await store.open(object) != nil { remove(object) }
                    continue
                }
                report.copied += 1
                if copy.sha256 != sha256 {
                    // Copied as it is, so the blob answers as before: a whole download sees the
                    // mismatch and is cut short, as it was from the file.
                    logger.error("A blob's file does not match its recorded SHA-256: its content was damaged before the copy",
                                 metadata: ["object": .string(object)])
                }
                remove(object)
            } catch {
                report.failed += 1
                logger.error("A blob's file could not be copied into PostgreSQL; the next start tries again",
                             metadata: ["object": .string(object), "error": .string("\(error)")])
            }
        }
        removeEmptyFolders()
        if report.copied > 0 || report.failed > 0 {
            logger.notice("Blob content moved from files into PostgreSQL, where every server reads it", metadata: [
                "copied": "\(report.copied)", "failed": "\(report.failed)", "directory": .string(files.root.path),
            ])
        }
        return report
    }

    private func remove(_ object: String) {
        unlink(files.path(of: object))
    }

    /// The ids of the object files under `<data>/blobs/objects`.
    private func objectFiles() -> [String] {
        let manager = FileManager.default
        let folders = (try? manager.contentsOfDirectory(atPath: files.objectsDirectory.path)) ?? []
        return folders.flatMap { folder in
            ((try? manager.contentsOfDirectory(atPath: files.objectsDirectory.appendingPathComponent(folder).path)) ?? [])
                .filter(BlobObjectID.isValid)
        }
    }

    /// Removes the file store's folders once nothing is left in them (`rmdir` refuses a folder
    /// that is not empty), so that later starts find nothing to look at. Files no blob names
    /// stay where they are, for the operator to look at.
    private func removeEmptyFolders() {
        let manager = FileManager.default
        let objects = files.objectsDirectory.path
        for folder in (try? manager.contentsOfDirectory(atPath: objects)) ?? [] {
            rmdir(files.objectsDirectory.appendingPathComponent(folder).path)
        }
        for folder in [objects, files.temporaryDirectory.path, files.root.path] {
            rmdir(folder)
        }
    }
}
