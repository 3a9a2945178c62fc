import Foundation
import StrataCore

/// One response of a tracked read or a delta: entities, tombstones and the links to go on.
///
/// A tracked read (``ODataQuery/deltaPage()``) and a delta (``DataService/deltaPage(at:wait:)``)
/// page like any collection: every page but the last has ``nextLink``; the last has ``deltaLink``.
public struct DeltaPage: Sendable {
    /// Entities inserted or changed (current values, shaped by the query's `$select`/`$expand`):
    /// upsert them by key. On a first read, every entity of the collection.
    public var entities: [Entity]
    /// Entities deleted, or that left what the caller may read: remove them (by
    /// ``ODataDeletedEntity/id``, which is the entity's `__metadata.uri`, or by ``ODataDeletedEntity/key``).
    public var deleted: [ODataDeletedEntity]
    /// Where the next page is (`__next`); nil on the last page.
    public var nextLink: URL?
    /// The link to ask for the changes after this read (`__delta`), on the last page only; nil
    /// there when the server did not track the query (the set is not tracked, an OData 1.0 answer).
    public var deltaLink: URL?

    /// A page; the service makes these from responses.
    public init(entities: [Entity], deleted: [ODataDeletedEntity] = [], nextLink: URL? = nil, deltaLink: URL? = nil) {
        self.entities = entities
        self.deleted = deleted
        self.nextLink = nextLink
        self.deltaLink = deltaLink
    }
}

/// A whole tracked read or delta, every page followed.
public struct DeltaResult: Sendable {
    /// Entities to upsert, in the order of the pages.
    public var entities: [Entity]
    /// Tombstones: entities to remove.
    public var deleted: [ODataDeletedEntity]
    /// The link for the changes after this result; nil when the server did not track the query.
    public var deltaLink: URL?

    /// A result; the service makes these.
    public init(entities: [Entity], deleted: [ODataDeletedEntity], deltaLink: URL?) {
        self.entities = entities
        self.deleted = deleted
        self.deltaLink = deltaLink
    }
}

extension ODataQuery {
    /// The first page of the collection, asking the server to track changes
    /// (`Prefer: odata.track-changes`): the last page (follow ``DeltaPage/nextLink`` with
    /// ``DataService/deltaPage(at:wait:)``) carries the ``DeltaPage/deltaLink``.
    public func deltaPage() async throws(StrataError) -> DeltaPage {
        var request = StrataRequest(.get, requestPath)
        request.headers["Prefer"] = ODataDelta.trackChangesPreference
        return try await service.readDeltaPage(request)
    }

    /// Reads the whole collection with change tracking, following `__next`, and returns it with
    /// the delta link for ``DataService/changes(since:wait:)``.
    ///
    /// ```swift
    /// let cars = service.set("Cars").filter(parsing: "price lt 20000")
    /// var result = try await cars.trackChanges()       // everything, and result.deltaLink
    /// // later:
    /// let delta = try await service.changes(since: result.deltaLink!)
    /// ```
    /// The delta link is nil when the server does not track the set.
    public func trackChanges() async throws(StrataError) -> DeltaResult {
        try await service.collect(first: try await deltaPage())
    }
}

extension DataService {
    /// One page of a delta link or of a `__next` link inside a delta.
    ///
    /// - Parameter wait: seconds to wait for changes when there are none yet (long-poll, at most
    ///   60); the server answers as soon as it has some, else an empty delta at the end of the wait.
    /// - Throws: ``StrataError/Kind/deltaTokenGone`` (410) when the link can no longer be used:
    ///   read the collection again with ``ODataQuery/trackChanges()``.
    public func deltaPage(at link: URL, wait: Int? = nil) async throws(StrataError) -> DeltaPage {
        var request = StrataRequest(.get, Self.adding(wait: wait, to: link.absoluteString))
        if let wait { request.timeout = max(connection.configuration.timeout, TimeInterval(wait) + 30) }
        return try await readDeltaPage(request)
    }

    /// The changes since a delta link, every page followed: entities to upsert, tombstones, and
    /// the next delta link.
    ///
    /// - Parameter wait: long-poll seconds, as for ``deltaPage(at:wait:)``.
    /// - Throws: ``StrataError/Kind/deltaTokenGone`` (410) when the link can no longer be used.
    public func changes(since deltaLink: URL, wait: Int? = nil) async throws(StrataError) -> DeltaResult {
        try await collect(first: try await deltaPage(at: deltaLink, wait: wait))
    }

    func readDeltaPage(_ request: StrataRequest) async throws(StrataError) -> DeltaPage {
        let page = try ResponseReader.deltaPage(try await send(request))
        await etags.record(page.entities)
        return page
    }

    func collect(first: DeltaPage) async throws(StrataError) -> DeltaResult {
        var result = DeltaResult(entities: first.entities, deleted: first.deleted, deltaLink: first.deltaLink)
        var next = first.nextLink
        while let link = next {
            let page = try await deltaPage(at: link)
            result.entities += page.entities
            result.deleted += page.deleted
            result.deltaLink = page.deltaLink
            next = page.nextLink
        }
        return result
    }

    /// `link` with `wait=N` added to its query.
    static func adding(wait: Int?, to link: String) -> String {
        guard let wait else { return link }
        return link + (link.contains("?") ? "&" : "?") + ODataDelta.waitOption + "=\(wait)"
    }
}

extension ResponseReader {
    /// `{"d":{"results":[entity | tombstone…],"__next"|"__delta":"…"}}`.
    static func deltaPage(_ response: StrataResponse) throws(StrataError) -> DeltaPage {
        let content = try wrapped(response)
        guard case .object(let object) = content, case .array(let items)? = object["results"] else {
            throw invalid(response, "Expected a collection with results, found \(content.shortDescription)")
        }
        var page = DeltaPage(entities: [])
        for item in items {
            if let tombstone = ODataDeletedEntity(json: item) {
                page.deleted.append(tombstone)
            } else if case .object(let entity) = item {
                page.entities.append(Entity(json: entity))
            } else {
                throw invalid(response, "A collection element is \(item.shortDescription), not an entity")
            }
        }
        func link(_ name: String) -> URL? {
            object[name]?.stringValue.flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL }
        }
        page.nextLink = link("__next")
        page.deltaLink = link(ODataDelta.deltaLinkMember)
        return page
    }
}
