import Foundation
import Logging
import StrataCore
import StrataSQL
import StrataIdentity
import StrataStorage

/// Everything the blob endpoints need, built once per server.
package struct BlobRuntime: Sendable {
    package let catalog: BlobCatalog
    package let store: any BlobStore
    let authorizer: BlobAuthorizer
    /// The largest blob accepted, in bytes; larger uploads are answered 413.
    package let maxBlobSize: Int64
    let logger: Logger
    let now: @Sendable () -> Date
    /// On PostgreSQL, the files of an earlier server's blobs, copied into the database at start.
    var fileImport: BlobFileImport? = nil

    /// Leftovers younger than this are left alone by the sweep at start: another upload may be
    /// writing them (a temporary file's time is that of its last write).
    static let sweepAge: Duration = .seconds(3600)

    /// Prepares the store, removes what interrupted uploads left behind, and copies blobs still in
    /// files into PostgreSQL (``BlobFileImport``). Runs after the system database is migrated.
    package func start() async throws {
        try await store.prepare()
        let removed = try await store.sweep(referenced: try await catalog.referencedObjects(), olderThan: Self.sweepAge)
        if removed > 0 {
            logger.info("Removed leftovers of interrupted blob uploads", metadata: ["objects": "\(removed)"])
        }
        if let fileImport, fileImport.hasFiles { await fileImport.run(recorded: try await catalog.recordedHashes()) }
    }

    /// Milliseconds since 1970, the catalog's time.
    package var nowMilliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}

extension BlobRuntime {
    /// The services of a server: blob content in PostgreSQL when the system database is
    /// PostgreSQL, since every server of a deployment reaches it; in files under `<data>/blobs`
    /// on SQLite, which one server serves. There is no setting to keep files on PostgreSQL: a
    /// second server would list blobs whose content it cannot read.
    /// `contentReads`: where downloads read blob content on a server with standbys
    /// (``ServiceStore/replicatedSystem``).
    package static func make(system: SystemDatabase, dataDirectory: String, authorizer: BlobAuthorizer, maxBlobSize: Int64,
                     logger: Logger, now: @escaping @Sendable () -> Date, contentReads: (any Database)? = nil) -> BlobRuntime {
        let files = FileBlobStore(root: URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("blobs"), logger: logger)
        guard system.dialect == .postgres else {
            return BlobRuntime(catalog: BlobCatalog(system: system), store: files, authorizer: authorizer, maxBlobSize: maxBlobSize,
                                logger: logger, now: now)
        }
        // The store keeps its times by the real clock: they serve housekeeping that servers share
        // (grace periods, the sweep), never what a client sees.
        let store = PostgresBlobStore(system: system, logger: logger, contentReads: contentReads)
        return BlobRuntime(catalog: BlobCatalog(system: system), store: store, authorizer: authorizer, maxBlobSize: maxBlobSize,
                            logger: logger, now: now, fileImport: BlobFileImport(files: files, store: store, logger: logger))
    }
}

extension BlobRuntime {
    /// The container of a request; 404 when there is none.
    func requireContainer(_ name: String) async throws -> BlobContainer {
        guard let container = try await catalog.container(name) else {
            throw ODataError.notFound("There is no container named '\(name)'.")
        }
        return container
    }

    /// The container of a request once the caller may do `action` in it: 404, 401 or 403 otherwise.
    func container(_ name: String, for action: BlobAction, principal: Principal?) async throws -> BlobContainer {
        let container = try await requireContainer(name)
        try await authorizer.authorize(action, in: container, principal: principal)
        return container
    }
}

extension ODataError {
    static func blobNotFound(_ name: String, container: String) -> ODataError {
        ODataError(status: 404, code: "BlobNotFound", message: "The container \(container) has no blob named '\(name)'.")
    }
}
