import HTTPTypes
import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData

/// The container-level requests: list containers, list a container's blobs, create or open up a
/// container, remove one.
struct ContainerOperations {
    let blobs: BlobRuntime
    let principal: Principal?

    /// Blobs per listing page unless `limit` says otherwise, and the most `limit` may ask for.
    static let defaultLimit = 1000

    /// `GET /blobs`: the containers the caller may list.
    func listContainers(headRequest: Bool) async throws -> Response {
        let visible = try await blobs.authorizer.readable(try await blobs.catalog.containers(), principal: principal)
        return ODataResponse.json(BlobJSON.containers(visible), version: nil, headRequest: headRequest)
    }

    /// `GET /blobs/{container}?prefix=&limit=&marker=`: a page of blobs in name order (bytewise),
    /// with the `nextMarker` that continues it.
    func listBlobs(_ name: String, query: BlobQuery, headRequest: Bool) async throws -> Response {
        let container = try await blobs.container(name, for: .read, principal: principal)
        let prefix = query["prefix"] ?? ""
        var limit = Self.defaultLimit
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.defaultLimit).contains(value) else {
                throw ODataError.badRequest("limit must be a whole number from 1 to \(Self.defaultLimit), not '\(text.prefix(20))'.")
            }
            limit = value
        }
        let marker = query["marker"].flatMap { $0.isEmpty ? nil : $0 }
        // One more than asked for tells whether another page follows.
        var page = try await blobs.catalog.list(container: container.name, prefix: prefix, after: marker, limit: limit + 1)
        var nextMarker: String?
        if page.count > limit {
            page.removeLast()
            nextMarker = page.last?.name
        }
        return ODataResponse.json(BlobJSON.listing(container, prefix: prefix, blobs: page, nextMarker: nextMarker),
                                  version: nil, headRequest: headRequest, extraHeaders: [.cacheControl: "no-cache"])
    }

    /// `PUT /blobs/{container}[?access=private|public-read]`: 201 for a new container; 204 for an
    /// existing one, whose access changes only when `access` is given.
    func create(_ name: String, query: BlobQuery) async throws -> Response {
        try blobs.authorizer.authorizeAdministration(of: name, principal: principal)
        let access = try query["access"].map { text throws(ODataError) in
            guard let access = ContainerAccess(rawValue: text) else {
                throw ODataError.badRequest("access must be private or public-read, not '\(text.prefix(20))'.")
            }
            return access
        }
        if try await blobs.catalog.createContainer(name, access: access ?? .private, now: blobs.nowMilliseconds) {
            let container = try await blobs.requireContainer(name)
            var writer = JSONWriter()
            BlobJSON.container(container, into: &writer)
            return ODataResponse.json(writer.bytes, status: .created, version: nil, extraHeaders: [.location: "\(BlobTarget.prefix)/\(name)"])
        }
        if let access, !(try await blobs.catalog.setAccess(name, access)) {
            throw ODataError.notFound("The container \(name) was removed meanwhile.")
        }
        return Response(status: .noContent)
    }

    /// `DELETE /blobs/{container}[?force=true]`: only an empty container, unless forced.
    func remove(_ name: String, query: BlobQuery) async throws -> Response {
        try blobs.authorizer.authorizeAdministration(of: name, principal: principal)
        switch try await blobs.catalog.removeContainer(name, force: try query.flag("force") ?? false) {
        case .missing:
            throw ODataError.notFound("There is no container named '\(name)'.")
        case .notEmpty:
            throw ODataError.conflict("The container \(name) is not empty; delete its blobs first, or remove it with ?force=true.")
        case .removed(let objects):
            await blobs.store.delete(objects)
            return Response(status: .noContent)
        }
    }
}
