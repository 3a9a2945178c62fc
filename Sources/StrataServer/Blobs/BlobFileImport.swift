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

    /// Copies the objects of `recorded` (object id → recorded SHA-256) that have a file.
    @discardableResult
    func run(recorded: [String: String]) async -> Report {
        var report = Report()
        guard FileManager.default.fileExists(atPath: files.objectsDirectory.path) else { return report }
        for (object, sha256) in recorded.sorted(by: { $0.key < $1.key }) {
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
}
