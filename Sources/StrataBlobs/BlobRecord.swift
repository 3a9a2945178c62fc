import Foundation

/// Who may read a container without credentials.
public enum ContainerAccess: String, Sendable, CaseIterable {
    /// Only callers with rights on the container (the default).
    case `private`
    /// Anyone may list the container and read its blobs; writes still need rights.
    case publicRead = "public-read"
}

/// A container as the system database records it.
package struct BlobContainer: Sendable, Hashable {
    var name: String
    var access: ContainerAccess
    /// Milliseconds since 1970.
    var createdAt: Int64
}

/// A blob as the system database records it: where its content is and what it is.
package struct BlobRecord: Sendable, Hashable {
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

    package init(container: String, name: String, object: String, size: Int64, sha256: String, contentType: String, modifiedAt: Int64) {
        self.container = container
        self.name = name
        self.object = object
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
        self.modifiedAt = modifiedAt
    }

    /// The `ETag` header value: the content hash, quoted (a strong tag: equal tags, equal bytes).
    var etag: String { "\"" + sha256 + "\"" }

    var lastModified: Date { Date(timeIntervalSince1970: Double(modifiedAt) / 1000) }
}
