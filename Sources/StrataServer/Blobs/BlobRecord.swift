import Foundation

/// Who may read a container without credentials.
public enum ContainerAccess: String, Sendable, CaseIterable {
    /// Only callers with rights on the container (the default).
    case `private`
    /// Anyone may list the container and read its blobs; writes still need rights.
    case publicRead = "public-read"
}

/// A container as the system database records it.
struct BlobContainer: Sendable, Hashable {
    var name: String
    var access: ContainerAccess
    /// Milliseconds since 1970.
    var createdAt: Int64
}

/// A blob as the system database records it: where its content is and what it is.
struct BlobRecord: Sendable, Hashable {
    var container: String
    var name: String
    /// The stored object holding the content (see ``BlobStore``). Every upload writes a new
    /// object, so an object id also identifies one version of a blob.
    var object: String
    var size: Int64
    /// Lowercase hex SHA-256 of the content; also the ETag.
    var sha256: String
    var contentType: String
    /// Milliseconds since 1970.
    var modifiedAt: Int64

    /// The `ETag` header value: the content hash, quoted (a strong tag: equal tags, equal bytes).
    var etag: String { "\"" + sha256 + "\"" }

    var lastModified: Date { Date(timeIntervalSince1970: Double(modifiedAt) / 1000) }
}
