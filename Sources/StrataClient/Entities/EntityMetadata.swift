import Foundation

/// An entity's `__metadata`: where it lives, its type, and its ETag.
///
/// `Decodable`, so a model can keep it: `let __metadata: EntityMetadata?` (the decoder otherwise
/// skips `__metadata`).
public struct EntityMetadata: Sendable, Hashable, Codable {
    /// The entity's canonical URL, `http://host/cardealer/Person(1)`.
    public var uri: URL?
    /// The namespace-qualified type, `edmexampleModel.Person`.
    public var type: String?
    /// The entity's version tag; send it back as `If-Match` to update only what you read.
    public var etag: String?

    /// Metadata with the given parts.
    public init(uri: URL? = nil, type: String? = nil, etag: String? = nil) {
        self.uri = uri
        self.type = type
        self.etag = etag
    }
}
