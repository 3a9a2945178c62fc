import Foundation
import StrataCore

/// One OData service: the root its URLs start from, the connection that carries its requests, and
/// the protocol version to ask for. Start queries with ``set(_:)``.
///
/// ```swift
/// let service = DataService(url: URL(string: "http://127.0.0.1:8080/cardealer/")!)
/// let people = try await service.set("Person").orderBy("lastName").top(10).all()
/// ```
public struct DataService: Sendable {
    /// The connection requests go through (its observers and ``Connection/lastExchange`` see them).
    public let connection: Connection
    /// The service root relative to the connection's base URL: `cardealer/`, or empty when the base
    /// URL is the service root.
    public let rootPath: String
    /// The OData version to speak: ``ODataVersion/v2`` (the default) or ``ODataVersion/v1`` send
    /// `MaxDataServiceVersion` and read verbose JSON; ``ODataVersion/v4`` sends `OData-MaxVersion: 4.0`
    /// and `Accept: application/json;odata.metadata=minimal`, writes with `PATCH` and `@odata.bind`,
    /// and reads V4 JSON and CSDL 4.0 — from Strata or from any other V4 service.
    ///
    /// Answers are read in the version they come in whatever this says: a service that answers
    /// `OData-Version: 4.0` (one that speaks only V4) is read as V4, a bare array as V1. See
    /// <doc:TalkingToV4Services>.
    public var maxVersion: ODataVersion
    /// The ETags of entities this service has read and written, shared by copies of the service.
    public let etags: ETagTracker
    /// The model, when a V4 answer needed it to complete its entities' ids.
    let models: ModelCache

    /// A service at `path` below the connection's base URL (`"cardealer"`), or at the base URL itself.
    public init(connection: Connection, path: String = "", maxVersion: ODataVersion = .v2) {
        self.connection = connection
        let trimmed = path.drop { $0 == "/" }
        self.rootPath = trimmed.isEmpty || trimmed.hasSuffix("/") ? String(trimmed) : trimmed + "/"
        self.maxVersion = maxVersion
        self.etags = ETagTracker()
        self.models = ModelCache()
    }

    /// A service whose root is `url`, with a connection of its own.
    public init(url: URL, configuration: ConnectionConfiguration = ConnectionConfiguration(), maxVersion: ODataVersion = .v2) {
        self.init(connection: Connection(baseURL: url, configuration: configuration), maxVersion: maxVersion)
    }

    /// The service root as an absolute URL.
    public var rootURL: URL {
        (try? connection.url(for: rootPath)) ?? connection.baseURL
    }

    /// A query over the entity set `name`, such as `Person`.
    public func set(_ name: String) -> ODataQuery {
        ODataQuery(service: self, path: ResourcePath([PathSegment(name)]))
    }

    /// A query over any resource path below the service root.
    public func resource(_ path: ResourcePath, options: QueryOptions = QueryOptions()) -> ODataQuery {
        ODataQuery(service: self, path: path, options: options)
    }

    /// The names of the service's entity sets, from its service document (V2's `EntitySets`, or
    /// the `EntitySet` entries of V4's `value`).
    public func entitySets() async throws(StrataError) -> [String] {
        let response = try await send(StrataRequest(.get, rootPath))
        if let names = try ResponseReader.serviceDocumentV4(response) { return names }
        let content = try ResponseReader.wrapped(response)
        guard let names = content["EntitySets"]?.arrayValue?.compactMap(\.stringValue) else {
            throw ResponseReader.invalid(response, "The service document has no EntitySets list")
        }
        return names
    }

    /// The service's `$metadata` document (EDMX, XML) as text: CSDL 2.0 in V2, CSDL 4.0 when
    /// ``maxVersion`` is ``ODataVersion/v4``.
    public func metadataDocument() async throws(StrataError) -> String {
        try await send(StrataRequest(.get, rootPath + "$metadata", headers: ["Accept": "application/xml"])).text
    }

    /// Sends a request with the service's version headers and returns the response when it is a success.
    ///
    /// `path` in the request is relative to the connection's base URL; use ``path(_:)`` to build one
    /// below the service root.
    ///
    /// - Throws: ``StrataError`` with the server's OData error for unsuccessful statuses.
    @discardableResult
    public func send(_ request: StrataRequest, progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> StrataResponse {
        var request = request
        VersionHeaders(version: maxVersion).add(to: &request)
        return try await connection.send(request, progress: progress).requireSuccess()
    }

    /// Sends a request like ``send(_:progress:)`` and writes a successful answer's body to `file` as
    /// it arrives (``Connection/download(_:to:progress:)``): a large answer never sits in memory.
    /// `inPlace`: written to `file` itself as it arrives (``Connection/download(_:inPlace:progress:)``).
    func download(_ request: StrataRequest, to file: URL, inPlace: Bool = false,
                  progress: (@Sendable (TransferProgress) -> Void)?) async throws(StrataError) {
        var request = request
        VersionHeaders(version: maxVersion).add(to: &request)
        let response = inPlace ? try await connection.download(request, inPlace: file, progress: progress)
            : try await connection.download(request, to: file, progress: progress)
        try response.requireSuccess()
    }

    /// The connection-relative path of a resource below the service root, with a query string.
    public func path(_ resource: ResourcePath, options: QueryOptions = QueryOptions()) -> String {
        let query = options.queryText(for: maxVersion)
        return rootPath + resource.urlText(version: maxVersion) + (query.isEmpty ? "" : "?" + query)
    }
}
