import Foundation
import StrataCore

/// One response's worth of a collection: its entities, the total count when it was asked for, and
/// the link to the next page when the server split the result.
public struct EntityPage: Sendable {
    /// The entities of this page, in order.
    public var entities: [Entity]
    /// The number of matching entities across all pages (`__count`), when the query asked for
    /// ``ODataQuery/inlineCount(_:)``.
    public var count: Int?
    /// Where the next page is (`__next`); nil on the last page and for V1 responses, which are never split.
    public var nextLink: URL?
    /// The shape the server answered in: ``ODataVersion/v1`` for a bare array, ``ODataVersion/v2``
    /// for a `results` wrapper.
    public var shape: ODataVersion

    /// A page; the service makes these from responses.
    public init(entities: [Entity], count: Int? = nil, nextLink: URL? = nil, shape: ODataVersion = .v2) {
        self.entities = entities
        self.count = count
        self.nextLink = nextLink
        self.shape = shape
    }
}

/// Reads the verbose JSON envelopes: `{"d": entity}`, `{"d": […]}` (V1) and
/// `{"d": {"results": […], "__count": "N", "__next": "…"}}` (V2).
enum ResponseReader {
    static func page(_ response: StrataResponse) throws(StrataError) -> EntityPage {
        let content = try wrapped(response)
        switch content {
        case .array(let items):
            return EntityPage(entities: try entities(items, response), shape: .v1)
        case .object(let object):
            guard case .array(let items)? = object["results"] else {
                throw invalid(response, "Expected a collection, but the response is a single entity; use get() for one entity")
            }
            let count = object["__count"].flatMap { $0.intValue }
            let next = object["__next"]?.stringValue.flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL }
            return EntityPage(entities: try entities(items, response), count: count, nextLink: next, shape: .v2)
        default:
            throw invalid(response, "Expected a collection, found \(content.shortDescription)")
        }
    }

    static func entity(_ response: StrataResponse) throws(StrataError) -> Entity {
        let content = try wrapped(response)
        guard case .object(let object) = content else {
            let hint = content.arrayValue != nil ? "; use all(), first() or entities() for a collection" : ""
            throw invalid(response, "Expected one entity, found \(content.shortDescription)\(hint)")
        }
        if case .array? = object["results"], object["__metadata"] == nil {
            throw invalid(response, "Expected one entity, but the response is a collection; use all(), first() or entities()")
        }
        return Entity(json: object)
    }

    /// The value inside `{"d": …}`.
    static func wrapped(_ response: StrataResponse) throws(StrataError) -> JSONValue {
        let json = try response.json()
        guard case .object(let root) = json, let content = root["d"] else {
            throw invalid(response, "The response has no {\"d\": …} wrapper, so it is not OData verbose JSON: \(response.text.prefix(120))")
        }
        return content
    }

    private static func entities(_ items: [JSONValue], _ response: StrataResponse) throws(StrataError) -> [Entity] {
        var result: [Entity] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .object(let object) = item else { throw invalid(response, "A collection element is \(item.shortDescription), not an entity") }
            result.append(Entity(json: object))
        }
        return result
    }

    static func invalid(_ response: StrataResponse, _ message: String) -> StrataError {
        StrataError(.invalidResponse, status: response.status, method: response.request?.method, url: response.url,
                    message: message, response: response)
    }
}
