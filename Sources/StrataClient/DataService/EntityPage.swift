import Foundation
import StrataCore

/// One response's worth of a collection: its entities, the total count when it was asked for, and
/// the link to the next page when the server split the result.
public struct EntityPage: Sendable {
    /// The entities of this page, in order.
    public var entities: [Entity]
    /// The number of matching entities across all pages (`__count` in V2, `@odata.count` in V4),
    /// when the query asked for ``ODataQuery/inlineCount(_:)``.
    public var count: Int?
    /// Where the next page is (`__next` in V2, `@odata.nextLink` in V4); nil on the last page and
    /// for V1 responses, which are never split.
    public var nextLink: URL?
    /// The shape the server answered in: ``ODataVersion/v1`` for a bare array, ``ODataVersion/v2``
    /// for a `results` wrapper, ``ODataVersion/v4`` for V4 JSON's `value` array.
    public var shape: ODataVersion
    /// V4's `@odata.context`: the entity set the page's entities belong to.
    var context: String?

    /// A page; the service makes these from responses.
    public init(entities: [Entity], count: Int? = nil, nextLink: URL? = nil, shape: ODataVersion = .v2) {
        self.entities = entities
        self.count = count
        self.nextLink = nextLink
        self.shape = shape
    }
}

/// Reads the verbose JSON envelopes: `{"d": entity}`, `{"d": […]}` (V1) and
/// `{"d": {"results": […], "__count": "N", "__next": "…"}}` (V2), and V4 JSON (see `pageV4`).
enum ResponseReader {
    static func page(_ response: StrataResponse) throws(StrataError) -> EntityPage {
        let json = try response.json()
        if case .object(let root) = json, isV4(response, root) { return try pageV4(root, response) }
        let content = try wrapped(json, response)
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
        let json = try response.json()
        if case .object(let root) = json, isV4(response, root) { return try entityV4(root, response) }
        let content = try wrapped(json, response)
        guard case .object(let object) = content else {
            let hint = content.arrayValue != nil ? "; use all(), first() or entities() for a collection" : ""
            throw invalid(response, "Expected one entity, found \(content.shortDescription)\(hint)")
        }
        if case .array? = object["results"], object["__metadata"] == nil {
            throw invalid(response, "Expected one entity, but the response is a collection; use all(), first() or entities()")
        }
        return Entity(json: object)
    }

    /// Whether a response holds a collection (V1's array, V2's `results`, V4's `value`) rather than one entity.
    static func isCollection(_ response: StrataResponse) throws(StrataError) -> Bool {
        let json = try response.json()
        if case .object(let root) = json, isV4(response, root) { return isCollectionV4(root) }
        let content = try wrapped(json, response)
        return content.arrayValue != nil || (content["results"]?.arrayValue != nil && content["__metadata"] == nil)
    }

    /// The value inside `{"d": …}`.
    static func wrapped(_ response: StrataResponse) throws(StrataError) -> JSONValue {
        try wrapped(try response.json(), response)
    }

    static func wrapped(_ json: JSONValue, _ response: StrataResponse) throws(StrataError) -> JSONValue {
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
