import NIOCore

/// Where blob content lives, as objects with ids the store chooses. Names, types and access live
/// in the ``BlobCatalog``; an object becomes a blob only when a catalog row names it.
///
/// The filesystem store (``FileBlobStore``) is the one Strata ships. The protocol asks nothing a
/// filesystem could do and an S3-compatible store could not: write a whole object from a stream
/// (a multipart upload), read byte ranges (ranged GETs), delete, and list for a sweep.
package protocol BlobStore: Sendable {
    /// Creates what the store needs before the first request (directories, a bucket).
    func prepare() async throws

    /// Streams `content` into a new object of at most `limit` bytes, hashing it with SHA-256 as it
    /// goes. The object exists only once this returns; when it throws, nothing is left behind.
    ///
    /// - Throws: ``BlobStoreError/tooLarge`` past `limit`, ``BlobStoreError/noSpace``, or the
    ///   error of the content sequence (a client that went away mid-upload).
    func write<Content: AsyncSequence>(_ content: Content, limit: Int64) async throws -> StoredObject
    where Content.Element == ByteBuffer

    /// Opens an object for reading; nil when there is no such object (a newer upload replaced
    /// the blob after its row was read: the caller reads the row again).
    func open(_ object: String) async throws -> (any BlobObjectReader)?

    /// Deletes objects no blob names any more. Missing ones are ignored; failures are logged,
    /// because the blob they belonged to is already gone (the sweep removes any leftovers).
    func delete(_ objects: [String]) async

    /// Removes what interrupted work left: partial uploads, and objects that no row names
    /// (a crash between storing an object and recording it). Only things older than `age` go,
    /// so that an upload in progress at this moment is never touched. Answers how many went.
    func sweep(referenced: Set<String>, olderThan age: Duration) async throws -> Int
}

/// An object just written: its id and what the catalog records about its content.
package struct StoredObject: Sendable, Hashable {
    package var id: String
    package var size: Int64
    /// Lowercase hex SHA-256 of the content.
    package var sha256: String
}

/// An open object. Holding it keeps the content readable even if the blob is replaced or deleted
/// meanwhile, so a download that has started always finishes with the version it started with.
package protocol BlobObjectReader: Sendable {
    /// The size the store has for the object (compared with the catalog's before answering).
    var size: Int64 { get }

    /// Up to `length` bytes from `offset`; fewer only at the end of the object.
    func read(at offset: Int64, length: Int) async throws -> ByteBuffer
}

/// Failures of a store that mean something to a client.
enum BlobStoreError: Error, Sendable {
    /// The content went past the size limit; nothing was kept.
    case tooLarge(limit: Int64)
    /// The disk is full.
    case noSpace
    /// The object is shorter than its record says: the stored content is damaged.
    case truncated(object: String)
    /// Any other failure of the underlying storage; the detail goes to the log only.
    case io(String)
}
