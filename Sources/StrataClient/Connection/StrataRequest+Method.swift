extension StrataRequest {
    /// An HTTP request method, including the `MERGE` verb OData V2 uses for partial updates.
    ///
    /// Nested in ``StrataRequest``, as swift-http-types nests `HTTPRequest.Method`, so that an app
    /// that also uses another HTTP library (Alamofire, NIO, Vapor) sees no second `HTTPMethod`.
    /// It is Strata's own type rather than `HTTPRequest.Method` because OData V2 needs `MERGE` as a
    /// literal and the client stays free of dependencies beyond Foundation.
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
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

        /// The method name, as on the request line.
        public var description: String { rawValue }

        /// Reads a resource.
        public static let get: Method = "GET"
        /// Reads a resource's headers only.
        public static let head: Method = "HEAD"
        /// Creates an entity, or runs a `$batch`.
        public static let post: Method = "POST"
        /// Replaces an entity: properties left out become their default or null.
        public static let put: Method = "PUT"
        /// Updates the properties sent and leaves the others alone (OData's name for a partial update).
        public static let merge: Method = "MERGE"
        /// A partial update, like ``merge``.
        public static let patch: Method = "PATCH"
        /// Deletes an entity or a link.
        public static let delete: Method = "DELETE"
    }
}
