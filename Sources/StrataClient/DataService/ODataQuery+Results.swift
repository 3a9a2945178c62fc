import Foundation
import StrataCore

extension ODataQuery {
    /// The first page of the collection, with ``EntityPage/count`` when ``inlineCount(_:)`` was asked
    /// for and ``EntityPage/nextLink`` when there are more.
    public func page() async throws(StrataError) -> EntityPage {
        let page = await service.completed(try ResponseReader.page(try await service.send(StrataRequest(.get, requestPath))))
        await service.etags.record(page.entities)
        return page
    }

    /// The pages of the collection, following `__next` (V2) or `@odata.nextLink` (V4) links.
    public func pages() -> PageSequence {
        PageSequence(service: service, firstPath: requestPath)
    }

    /// Every entity of the collection, following next-page links as you iterate.
    public func entities() -> EntitySequence<Entity> {
        EntitySequence(service: service, firstPath: requestPath, transform: { $0 })
    }

    /// Every entity of the collection decoded as `type`, following next-page links as you iterate.
    public func entities<T: Decodable & Sendable>(as type: T.Type) -> EntitySequence<T> {
        EntitySequence(service: service, firstPath: requestPath, transform: { entity throws(StrataError) in try entity.decode(as: type) })
    }

    /// All entities of the collection, from every page.
    public func all() async throws(StrataError) -> [Entity] {
        try await collect(entities())
    }

    /// All entities of the collection decoded as `type`, from every page.
    public func all<T: Decodable & Sendable>(as type: T.Type) async throws(StrataError) -> [T] {
        try await collect(entities(as: type))
    }

    /// The first entity of the collection (the query with `$top=1`), or nil when it is empty.
    public func first() async throws(StrataError) -> Entity? {
        try await top(1).page().entities.first
    }

    /// The first entity of the collection decoded as `type`, or nil when it is empty.
    public func first<T: Decodable>(as type: T.Type) async throws(StrataError) -> T? {
        try await first()?.decode(as: type)
    }

    /// The one entity the query addresses, such as `set("Person").key(1)` or `…key(2).navigate("Car")`.
    ///
    /// - Throws: ``StrataError/Kind/notFound`` when it does not exist.
    public func get() async throws(StrataError) -> Entity {
        let response = try await service.send(StrataRequest(.get, requestPath))
        let entity = await service.completed(try ResponseReader.entity(response), from: response)
        await service.record(entity, from: response)
        return entity
    }

    /// The one entity the query addresses, decoded as `type`.
    public func get<T: Decodable>(as type: T.Type) async throws(StrataError) -> T {
        try await get().decode(as: type)
    }

    /// How many entities the query selects, counted by the server (`…/$count`): those matching
    /// `$filter`, narrowed by `$skip` and `$top` as the collection would be.
    public func count() async throws(StrataError) -> Int {
        var countPath = path
        countPath.segments.append(PathSegment("$count"))
        let countOptions = QueryOptions(filter: options.filter, top: options.top, skip: options.skip,
                                        customOptions: options.customOptions)
        let response = try await service.send(StrataRequest(.get, service.path(countPath, options: countOptions),
                                                      headers: ["Accept": "text/plain, application/json"]))
        let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else {
            throw ResponseReader.invalid(response, "$count answered \(text.prefix(40)), not a number")
        }
        return count
    }

    private func collect<S: AsyncSequence>(_ sequence: S) async throws(StrataError) -> [S.Element] {
        var result: [S.Element] = []
        do {
            for try await element in sequence { result.append(element) }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.invalidResponse, message: "\(error)", underlying: error)
        }
        return result
    }
}

/// What a GET answered when you do not know in advance: one entity or a page of a collection.
public enum FetchResult: Sendable {
    case entity(Entity)
    case collection(EntityPage)
}

extension ODataQuery {
    /// Sends the query and reads whichever it answers, one entity or the first page of a collection;
    /// for tools that take any URL, such as `strata get`.
    public func fetch() async throws(StrataError) -> FetchResult {
        let response = try await service.send(StrataRequest(.get, requestPath))
        if try ResponseReader.isCollection(response) {
            let page = await service.completed(try ResponseReader.page(response))
            await service.etags.record(page.entities)
            return .collection(page)
        }
        let entity = await service.completed(try ResponseReader.entity(response), from: response)
        await service.record(entity, from: response)
        return .entity(entity)
    }
}

extension DataService {
    /// Records a single entity's ETag: the response's `ETag` header when there is one (it is the
    /// authoritative version of a single-entity response), else `__metadata.etag` or `@odata.etag`.
    func record(_ entity: Entity, from response: StrataResponse) async {
        await etags.record(entity)
        if let header = response.headers["ETag"], let uri = entity.uri {
            await etags.record(header, for: uri)
        }
    }

    /// The pages of a collection starting at a next-page link (or any collection URL).
    public func pages(from link: URL) -> PageSequence {
        PageSequence(service: self, firstPath: link.absoluteString)
    }
}
