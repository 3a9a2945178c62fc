import Foundation
import HTTPTypes
import StrataCore

/// A write as the Request stage hands it on: the method checked against what the path addresses,
/// the body read as that target expects it (an entity, one property's value, a link), the
/// entities the body refers to resolved, and the `If-Match` condition.
///
/// Authorization reads from it which other tables a deep insert touches
/// (``WriteAccess/including(_:)``); Execution's ``WriteOperation`` checks and runs it without
/// looking at the body, the URL or the headers again.
package struct WriteRequest: Sendable {
    package let path: ResolvedPath
    let method: HTTPRequest.Method
    let content: Content
    /// `If-Match`, parsed; nil when absent (428 first when the service requires one).
    let condition: EntityTagCondition?
    /// `If-Match` as the client sent it, for the message of a 412.
    let conditionText: String
    /// The entities the body refers to (`{"__metadata":{"uri":"Car(5)"}}`, a link's `{"uri":…}`),
    /// resolved, by the URI as sent.
    let references: [String: ResolvedPath]

    enum Content: Sendable {
        /// POST to a collection: the entity to create, with what it carries inline.
        case insert(EntityPayload)
        /// PUT (`replace`), MERGE or PATCH of one entity.
        case update(EntityPayload, replace: Bool)
        /// DELETE of one entity.
        case delete
        /// PUT of one property (or its `$value`), or DELETE of it (null).
        case property(EntityProperty, ODataValue)
        /// A change of `$links/navigation`: the entity to point to, or nil to remove the link.
        case link(NavigationProperty, key: [ODataValue]?, target: ResolvedPath?)
    }

    /// Reads `body` for `call` on `path`. Every failure is a 4xx that names what to send instead;
    /// `references` resolves entity URIs, with the Content-IDs of an enclosing change set.
    package static func parse(_ call: ODataCall, _ path: ResolvedPath, body: [UInt8],
                              references: ServiceRelativeURL) throws(ODataError) -> WriteRequest {
        let method = call.method
        if !body.isEmpty, let mediaType = call.bodyMediaType, !ODataCall.readsAsJSON(mediaType) {
            // A raw `$value` body may have any type; other bodies are JSON (verbose or bare), and an
            // Atom or XML body is refused rather than misread.
            if case .rawValue = path.terminal {} else {
                throw .unsupportedMediaType("Strata reads request bodies as JSON (Content-Type: application/json), not \(mediaType.prefix(60)).")
            }
        }
        let model = call.service.model
        let target = path.target
        var resolved: [String: ResolvedPath] = [:]
        func resolve(_ uri: String) throws(ODataError) -> ResolvedPath {
            if let known = resolved[uri] { return known }
            let path = try references.resolveEntity(uri, model: model)
            resolved[uri] = path
            return path
        }
        let content: Content
        switch path.terminal {
        case .entities:
            if target.isCollection {
                guard method == .post else {
                    throw .methodNotAllowed("\(method.rawValue) needs a single entity, as in \(target.set.name)(key); POST to \(target.set.name) creates one.")
                }
                let decoder = EntityPayloadDecoder(model: model, version: call.version, nullAsksForDefault: call.version.isV4)
                let payload = try decoder.decode(body: body, as: target.type)
                try payload.forEachBinding { uri throws(ODataError) in _ = try resolve(uri) }
                content = .insert(payload)
            } else {
                switch method {
                case .put, .patch, .merge:
                    let payload = try EntityPayloadDecoder(model: model, version: call.version).decode(body: body, as: target.type)
                    try payload.forEachBinding { uri throws(ODataError) in _ = try resolve(uri) }
                    content = .update(payload, replace: method == .put)
                case .delete:
                    content = .delete
                default:
                    throw .methodNotAllowed("\(method.rawValue) is not supported on a single entity; use PUT, MERGE, PATCH or DELETE (POST creates entities in a collection).")
                }
            }
        case .property(let property), .rawValue(let property):
            guard [.put, .patch, .merge, .delete].contains(method) else {
                throw .methodNotAllowed("\(method.rawValue) is not supported on the property \(property.name); use PUT to change it or DELETE to clear it.")
            }
            content = .property(property, try propertyValue(call, path, property, body: body))
        case .links(let navigation, let key):
            var linked: ResolvedPath?
            var linkKey = key
            switch method {
            case .post where navigation.multiplicity == .many && key == nil,
                 .put where navigation.multiplicity != .many,
                 .merge where navigation.multiplicity != .many,
                 .patch where navigation.multiplicity != .many:
                let object = try EntityPayloadDecoder.entityObject(body)
                // V2 says `{"uri": …}`, V4 `{"@odata.id": …}`.
                let member = call.version.isV4 ? "@odata.id" : "uri"
                guard case .string(let uri)? = object[member] else {
                    throw .badRequest("Send the link as {\"\(member)\": \"…/\(navigation.targetSet)(key)\"}.")
                }
                linked = try resolve(uri)
                guard linked?.target.set.name == navigation.targetSet else {
                    throw .badRequest("The link \(navigation.name) must refer to an entity of \(navigation.targetSet), not '\(uri.prefix(200))'.")
                }
            case .delete:
                if navigation.multiplicity == .many && key == nil {
                    // V4 names it in `$id`: `Person(1)/PersonCar/$ref?$id=PersonCar(5)`.
                    guard call.version.isV4, let id = call.url.value(of: "$id") else {
                        throw .badRequest(call.version.isV4
                            ? "Name the link to remove, as in \(navigation.name)/$ref?$id=\(navigation.targetSet)(key) or \(navigation.name)(key)/$ref."
                            : "Name the link to remove, as in $links/\(navigation.name)(key).")
                    }
                    let named = try resolve(id)
                    guard named.target.set.name == navigation.targetSet, named.target.key != nil else {
                        throw .badRequest("$id must name an entity of \(navigation.targetSet), not '\(id.prefix(200))'.")
                    }
                    linkKey = named.target.key
                }
            default:
                let allowed = navigation.multiplicity == .many ? "POST adds a link and DELETE $links/\(navigation.name)(key) removes one"
                                                               : "PUT sets the link and DELETE removes it"
                throw .methodNotAllowed("\(method.rawValue) is not supported on $links/\(navigation.name): \(allowed).")
            }
            content = .link(navigation, key: linkKey, target: linked)
        case .count:
            throw .methodNotAllowed("$count can only be read.")
        }
        return WriteRequest(path: path, method: method, content: content, condition: try call.ifMatch(),
                            conditionText: call.ifMatchText, references: resolved)
    }

    /// The new value of a property: `{"name": value}`, the raw text of a `$value`, or null for DELETE.
    private static func propertyValue(_ call: ODataCall, _ path: ResolvedPath, _ property: EntityProperty,
                                      body: [UInt8]) throws(ODataError) -> ODataValue {
        if call.method == .delete { return .null }
        let described = ResolvedPath.describe(path.steps[...])
        if case .rawValue = path.terminal {
            if property.type == .binary { return .binary(Data(body)) }
            let text = String(decoding: body, as: UTF8.self)
            if property.type == .string { return .string(text) }
            do {
                return try ODataJSON.decode(.string(text), as: property.type)
            } catch {
                throw .badRequest("The property \(property.name) of \(described): \(error.message).", target: property.name)
            }
        }
        let object = try EntityPayloadDecoder.entityObject(body)
        // V2 names the property (`{"firstName": …}`), V4 says `{"value": …}`, with annotations beside it.
        let member = call.version.isV4 ? "value" : property.name
        let values = call.version.isV4 ? object.filter { !$0.key.contains("@") } : Array(object)
        guard values.count == 1, let json = object[member] else {
            throw .badRequest("Send the property as {\"\(member)\": value}.")
        }
        return try EntityPayloadDecoder(model: call.service.model, version: call.version).decodeValue(json, for: property, path: described)
    }

    /// The resolved entity a body's `uri` names.
    func reference(_ uri: String) throws(ODataError) -> ResolvedPath {
        guard let path = references[uri] else {
            throw .internalError("The entity reference '\(uri.prefix(200))' reached Execution unresolved.")
        }
        return path
    }
}

extension EntityPayload {
    /// Calls `body` with the URI of every binding in the payload, depth first in body order.
    func forEachBinding(_ body: (String) throws(ODataError) -> Void) throws(ODataError) {
        for (_, content) in navigations {
            for entity in content.entities {
                switch entity {
                case .new(let child): try child.forEachBinding(body)
                case .binding(let uri): try body(uri)
                }
            }
        }
    }
}
