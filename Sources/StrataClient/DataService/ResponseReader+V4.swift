import Foundation
import StrataCore

/// Reads OData V4 JSON: `{"@odata.context": …, "@odata.count": N, "value": […], "@odata.nextLink": …}`
/// for a collection, the entity's own object for one entity, with control information in
/// `@odata.…` members. Minimal, full and no metadata all read the same way.
extension ResponseReader {
    /// Whether a response is V4: it says `OData-Version: 4.0`, or its JSON has no verbose `d`
    /// wrapper but V4's control information or `value` array.
    static func isV4(_ response: StrataResponse, _ root: JSONObject) -> Bool {
        if let header = response.headers["OData-Version"], let major = ODataVersion.parseHeader(header) {
            return major >= 4
        }
        if root.count == 1, root["d"] != nil { return false }
        return root.keys.contains { $0.hasPrefix("@") } || root["value"]?.arrayValue != nil
    }

    /// Whether a V4 object is a collection: a `value` array and nothing else but annotations of
    /// the collection (`@odata.count`, `@odata.nextLink`, …), or a context that says so.
    static func isCollectionV4(_ root: JSONObject) -> Bool {
        guard root["value"]?.arrayValue != nil else { return false }
        if let context = root["@odata.context"]?.stringValue, context.hasSuffix("/$entity") { return false }
        return root.keys.allSatisfy { $0 == "value" || $0.hasPrefix("@") }
    }

    static func pageV4(_ root: JSONObject, _ response: StrataResponse) throws(StrataError) -> EntityPage {
        guard isCollectionV4(root), case .array(let items)? = root["value"] else {
            throw invalid(response, "Expected a collection (a V4 \"value\" array), but the response is a single entity; use get() for one entity")
        }
        let control = ControlInformation(root)
        // V4 writes the count as a number, or as a string under IEEE754Compatible=true.
        let count = control.annotation("count").flatMap { $0.intValue ?? $0.stringValue.flatMap { Int($0) } }
        let base = contextBase(root, response)
        let next = control.annotation("nextLink")?.stringValue.flatMap { URL(string: $0, relativeTo: base)?.absoluteURL }
        var entities: [Entity] = []
        entities.reserveCapacity(items.count)
        for item in items {
            guard case .object(let object) = item else { throw invalid(response, "A collection element is \(item.shortDescription), not an entity") }
            entities.append(Entity(json: object))
        }
        var page = EntityPage(entities: entities, count: count, nextLink: next, shape: .v4)
        page.context = root["@odata.context"]?.stringValue
        return page
    }

    static func entityV4(_ root: JSONObject, _ response: StrataResponse) throws(StrataError) -> Entity {
        if isCollectionV4(root) {
            throw invalid(response, "Expected one entity, but the response is a collection; use all(), first() or entities()")
        }
        return Entity(json: root)
    }

    /// The names of the entity sets in a V4 service document, nil when the response is not one.
    static func serviceDocumentV4(_ response: StrataResponse) throws(StrataError) -> [String]? {
        guard case .object(let root) = try response.json(), isV4(response, root), case .array(let items)? = root["value"] else {
            return nil
        }
        return items.compactMap { item in
            guard item["kind"]?.stringValue ?? "EntitySet" == "EntitySet" else { return nil }
            return item["name"]?.stringValue ?? item["url"]?.stringValue
        }
    }

    /// What relative URLs in a V4 response are relative to: the context URL (the service's
    /// `$metadata`), else the request's URL.
    static func contextBase(_ root: JSONObject, _ response: StrataResponse) -> URL {
        root["@odata.context"]?.stringValue.flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL } ?? response.url
    }
}
