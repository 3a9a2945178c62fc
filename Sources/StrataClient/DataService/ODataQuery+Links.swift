import Foundation
import StrataCore

/// Relationships as OData V2 addresses them: `Person(1)/$links/PersonCar` lists, adds, replaces and
/// removes the links of a navigation property without touching the entities themselves.
extension ODataQuery {
    /// The URLs of the entities `navigationProperty` links to (`GET …/$links/Nav`).
    public func links(_ navigationProperty: String) async throws(StrataError) -> [URL] {
        let response = try await service.send(StrataRequest(.get, service.path(linksPath(navigationProperty), options: options)))
        let content = try ResponseReader.wrapped(response)
        let items: [JSONValue]
        switch content {
        case .array(let array): items = array
        case .object(let object):
            if case .array(let array)? = object["results"] { items = array } else { items = [content] }
        case .null: items = []
        default: throw ResponseReader.invalid(response, "Expected links, found \(content.shortDescription)")
        }
        var urls: [URL] = []
        for item in items {
            guard let text = item["uri"]?.stringValue, let url = URL(string: text, relativeTo: response.url)?.absoluteURL else {
                throw ResponseReader.invalid(response, "A link has no uri: \(item.shortDescription)")
            }
            urls.append(url)
        }
        return urls
    }

    /// Links `target` through a to-many navigation property (`POST …/$links/Nav`).
    public func addLink(_ navigationProperty: String, to target: ODataQuery) async throws(StrataError) {
        try await service.send(.json(.post, service.path(linksPath(navigationProperty)), body: try uriBody(target)))
    }

    /// Sets a to-one navigation property to `target` (`PUT …/$links/Nav`).
    public func setLink(_ navigationProperty: String, to target: ODataQuery) async throws(StrataError) {
        try await service.send(.json(.put, service.path(linksPath(navigationProperty)), body: try uriBody(target)))
    }

    /// Removes a link (`DELETE …/$links/Nav(key)`), or clears a to-one navigation property when
    /// `target` is nil (`DELETE …/$links/Nav`).
    public func removeLink(_ navigationProperty: String, to target: ODataQuery? = nil) async throws(StrataError) {
        var linkPath = linksPath(navigationProperty)
        if let target {
            guard let key = target.path.segments.last?.key else {
                throw StrataError(.invalidRequest, message: "removeLink(\(navigationProperty), to:) needs a target with a key, such as set(\"PersonCar\").key(2)")
            }
            linkPath.segments[linkPath.segments.count - 1].key = key
        }
        try await service.send(StrataRequest(.delete, service.path(linkPath)))
    }

    private func linksPath(_ navigationProperty: String) -> ResourcePath {
        ResourcePath(path.segments + [PathSegment("$links"), PathSegment(navigationProperty)])
    }

    private func uriBody(_ target: ODataQuery) throws(StrataError) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("uri")
        writer.string(try target.url().absoluteString)
        writer.endObject()
        return writer.bytes
    }
}
