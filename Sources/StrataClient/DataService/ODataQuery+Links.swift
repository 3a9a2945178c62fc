import Foundation
import StrataCore

/// Relationships as OData addresses them: `Person(1)/$links/PersonCar` in V2, `Person(1)/PersonCar/$ref`
/// in V4, lists, adds, replaces and removes the links of a navigation property without touching the
/// entities themselves.
extension ODataQuery {
    /// The URLs of the entities `navigationProperty` links to (`GET …/$links/Nav`, V4's `…/Nav/$ref`).
    public func links(_ navigationProperty: String) async throws(StrataError) -> [URL] {
        let response = try await service.send(StrataRequest(.get, service.path(linksPath(navigationProperty), options: options)))
        let json = try response.json()
        if case .object(let root) = json, ResponseReader.isV4(response, root) {
            return try Self.referencesV4(root, response)
        }
        let content = try ResponseReader.wrapped(json, response)
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

    /// Links `target` through a to-many navigation property (`POST …/$links/Nav`, V4's `…/Nav/$ref`).
    public func addLink(_ navigationProperty: String, to target: ODataQuery) async throws(StrataError) {
        try await service.send(.json(.post, service.path(linksPath(navigationProperty)), body: try uriBody(target)))
    }

    /// Sets a to-one navigation property to `target` (`PUT …/$links/Nav`, V4's `…/Nav/$ref`).
    public func setLink(_ navigationProperty: String, to target: ODataQuery) async throws(StrataError) {
        try await service.send(.json(.put, service.path(linksPath(navigationProperty)), body: try uriBody(target)))
    }

    /// Removes a link (`DELETE …/$links/Nav(key)`, V4's `DELETE …/Nav/$ref?$id=…`), or clears a
    /// to-one navigation property when `target` is nil (`DELETE …/$links/Nav`, `…/Nav/$ref`).
    public func removeLink(_ navigationProperty: String, to target: ODataQuery? = nil) async throws(StrataError) {
        var linkPath = linksPath(navigationProperty)
        if service.maxVersion.isV4 {
            var request = service.path(linkPath)
            if let target { request += "?$id=" + PercentEncoding.encodeQueryValue(try target.url().absoluteString) }
            try await service.send(StrataRequest(.delete, request))
            return
        }
        if let target {
            guard let key = target.path.segments.last?.key else {
                throw StrataError(.invalidRequest, message: "removeLink(\(navigationProperty), to:) needs a target with a key, such as set(\"PersonCar\").key(2)")
            }
            linkPath.segments[linkPath.segments.count - 1].key = key
        }
        try await service.send(StrataRequest(.delete, service.path(linkPath)))
    }

    private func linksPath(_ navigationProperty: String) -> ResourcePath {
        if service.maxVersion.isV4 {
            return ResourcePath(path.segments + [PathSegment(navigationProperty), PathSegment("$ref")])
        }
        return ResourcePath(path.segments + [PathSegment("$links"), PathSegment(navigationProperty)])
    }

    /// `{"value": [{"@odata.id": …}, …]}` for a to-many navigation, `{"@odata.id": …}` for a to-one.
    private static func referencesV4(_ root: JSONObject, _ response: StrataResponse) throws(StrataError) -> [URL] {
        let base = ResponseReader.contextBase(root, response)
        let items = root["value"]?.arrayValue ?? (root["@odata.id"] == nil ? [] : [.object(root)])
        var urls: [URL] = []
        for item in items {
            guard let text = item["@odata.id"]?.stringValue, let url = URL(string: text, relativeTo: base)?.absoluteURL else {
                throw ResponseReader.invalid(response, "A reference has no @odata.id: \(item.shortDescription)")
            }
            urls.append(url)
        }
        return urls
    }

    private func uriBody(_ target: ODataQuery) throws(StrataError) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key(service.maxVersion.isV4 ? "@odata.id" : "uri")
        writer.string(try target.url().absoluteString)
        writer.endObject()
        return writer.bytes
    }
}
