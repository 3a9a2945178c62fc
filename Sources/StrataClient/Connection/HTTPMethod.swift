/// An HTTP request method, including the `MERGE` verb OData V2 uses for partial updates.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method name as it appears on the request line, for example `GET`.
    public var rawValue: String

    /// Creates a method from its name; names are case-sensitive, so write them in capitals.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A method written as a literal, `"MERGE"`.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    /// Reads a resource.
    public static let get: HTTPMethod = "GET"
    /// Reads a resource's headers only.
    public static let head: HTTPMethod = "HEAD"
    /// Creates an entity, or runs a `$batch`.
    public static let post: HTTPMethod = "POST"
    /// Replaces an entity: properties left out become their default or null.
    public static let put: HTTPMethod = "PUT"
    /// Updates the properties sent and leaves the others alone (OData's name for a partial update).
    public static let merge: HTTPMethod = "MERGE"
    /// A partial update, like ``merge``.
    public static let patch: HTTPMethod = "PATCH"
    /// Deletes an entity or a link.
    public static let delete: HTTPMethod = "DELETE"
}
