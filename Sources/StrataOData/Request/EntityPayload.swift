import Foundation
import StrataCore

/// An entity as a client sent it in a POST, PUT, MERGE or PATCH body, checked against its entity
/// type: the property values it names (converted to their EDM types) and, for deep inserts, the
/// related entities it carries inline.
///
/// Everything here is decided before the database is touched, so a refused body changes nothing.
struct EntityPayload: Sendable {
    /// Values of the properties the body names, by property name.
    var values: [String: ODataValue]
    /// Inline content of navigation properties, by navigation property name, in body order.
    var navigations: [(name: String, content: NavigationContent)]

    func value(of name: String) -> ODataValue? { values[name] }
}

/// What a body says about one navigation property.
enum NavigationContent: Sendable {
    /// A single related entity (`"Car": {…}`), or null to say there is none.
    case single(InlineEntity?)
    /// Related entities (`"PersonCar": [{…}]` or `{"results": [{…}]}`).
    case many([InlineEntity])

    /// The related entities the body names, in body order; none for an explicit null.
    var entities: [InlineEntity] {
        switch self {
        case .single(let entity): entity.map { [$0] } ?? []
        case .many(let many): many
        }
    }
}

/// A related entity inside a body: a new one to create with the parent, or a reference to an
/// existing one (`{"__metadata": {"uri": "…/Car(5)"}}`) to link to.
indirect enum InlineEntity: Sendable {
    case new(EntityPayload)
    case binding(uri: String)
}

/// Reads request bodies into ``EntityPayload``s: verbose JSON `{"d": {…}}` or a bare object,
/// `__metadata` and `__deferred` members ignored, values in any of their OData JSON forms.
struct EntityPayloadDecoder {
    let model: ServiceModel
    /// V4 bodies carry control information (`@odata.type`, `Nav@odata.bind`) instead of V2's
    /// `__metadata`, and inline collections as plain arrays.
    var version: ODataVersion = .v2
    /// How deep inline entities may nest; deeper bodies are refused rather than walked.
    var maximumDepth = 16
    /// A new entity's null for a column that cannot be null but has a default asks for the default.
    /// V4 clients that write every declared property of a new entity (python-odata does) send such
    /// nulls for the columns they were not given; nothing else could be meant, since null would be
    /// refused. V2's bodies keep their meaning, and so do updates: there a null stays an error.
    var nullAsksForDefault = false

    /// Parses a body and checks it against `type`. Every failure is a 400 naming what is wrong.
    func decode(body: [UInt8], as type: EntityType) throws(ODataError) -> EntityPayload {
        try decode(object: Self.entityObject(body), as: type, path: type.name, depth: 0)
    }

    /// The entity object of a body: the value of `d` in verbose JSON, else the body itself.
    static func entityObject(_ body: [UInt8]) throws(ODataError) -> JSONObject {
        guard !body.isEmpty else {
            throw .badRequest("The request has no body; send the entity as JSON, as in {\"d\":{…}}.")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(body, maximumDepth: 256)
        } catch {
            throw .badRequest("The body is not valid JSON: \(error.description).")
        }
        guard case .object(var object) = json else {
            throw .badRequest("The body must be a JSON object, as in {\"d\":{…}}.")
        }
        // `{"d": {…}}` is the verbose wrapper; an entity may itself have a property named d, so only
        // a lone object-valued d is taken as the wrapper.
        if object.count == 1, case .object(let inner)? = object["d"] {
            object = inner
        }
        return object
    }

    func decode(object: JSONObject, as type: EntityType, path: String, depth: Int) throws(ODataError) -> EntityPayload {
        guard depth <= maximumDepth else {
            throw .badRequest("Inline entities nest deeper than \(maximumDepth) levels at \(path).")
        }
        var payload = EntityPayload(values: [:], navigations: [])
        var bindings: [(name: String, uris: JSONValue)] = []
        for (name, json) in object {
            if name == "__metadata" || name == "__count" { continue }
            if version.isV4, let at = name.firstIndex(of: "@") {
                // Instance and property annotations say nothing to store; `Nav@odata.bind` links.
                let term = name[name.index(after: at)...]
                if term == "odata.bind" { bindings.append((String(name[..<at]), json)) }
                continue
            }
            if let property = type.property(named: name) {
                if nullAsksForDefault, json == .null, !property.isNullable, property.hasDefault { continue }
                payload.values[name] = try decodeValue(json, for: property, path: path)
            } else if let navigation = type.navigationProperty(named: name) {
                if let content = try decodeNavigation(json, navigation, path: path + "/" + name, depth: depth) {
                    payload.navigations.append((name, content))
                }
            } else {
                let names = (type.properties.map(\.name) + type.navigationProperties.map(\.name)).joined(separator: ", ")
                throw .badRequest("\(path) has no property named '\(name)'. Its properties are: \(names).")
            }
        }
        for (name, uris) in bindings {
            try bind(name, uris, type: type, path: path, into: &payload)
        }
        return payload
    }

    /// `"Car@odata.bind": "Car(5)"` or `"PersonCar@odata.bind": ["PersonCar(1)", …]`: links to existing
    /// entities, beside any the body creates inline under the same name.
    private func bind(_ name: String, _ json: JSONValue, type: EntityType, path: String, into payload: inout EntityPayload) throws(ODataError) {
        guard let navigation = type.navigationProperty(named: name) else {
            let names = type.navigationProperties.map(\.name).joined(separator: ", ")
            throw .badRequest("\(path) has no navigation property named '\(name)' to bind. Its navigation properties are: \(names.isEmpty ? "none" : names).")
        }
        let uris: [String]
        switch (navigation.multiplicity == .many, json) {
        case (true, .array(let items)):
            var collected: [String] = []
            for item in items {
                guard case .string(let uri) = item else { throw .badRequest("\(name)@odata.bind lists entity URLs as strings, such as \"\(navigation.targetSet)(1)\".") }
                collected.append(uri)
            }
            uris = collected
        case (false, .string(let uri)):
            uris = [uri]
        case (true, _):
            throw .badRequest("\(name)@odata.bind is a collection: send an array of entity URLs, such as [\"\(navigation.targetSet)(1)\"].")
        case (false, _):
            throw .badRequest("\(name)@odata.bind is one entity URL, such as \"\(navigation.targetSet)(1)\".")
        }
        let bound = uris.map { InlineEntity.binding(uri: $0) }
        if let index = payload.navigations.firstIndex(where: { $0.name == name }) {
            guard case .many(let inline) = payload.navigations[index].content else {
                throw .badRequest("\(name) is given both inline and with @odata.bind; a single navigation takes one of them.")
            }
            payload.navigations[index].content = .many(inline + bound)
        } else {
            payload.navigations.append((name, navigation.multiplicity == .many ? .many(bound) : .single(bound[0])))
        }
    }

    /// One property value, converted and checked against the column's facets.
    func decodeValue(_ json: JSONValue, for property: EntityProperty, path: String) throws(ODataError) -> ODataValue {
        let value: ODataValue
        do {
            value = try ODataJSON.decode(json, as: property.type)
        } catch {
            throw .badRequest("The property \(property.name) of \(path): \(error.message).", target: property.name)
        }
        try PropertyFacets.check(value, against: property, path: path)
        return value
    }

    private func decodeNavigation(_ json: JSONValue, _ navigation: NavigationProperty, path: String, depth: Int) throws(ODataError) -> NavigationContent? {
        // An entity read with GET and sent back carries its unexpanded navigations as __deferred; they say nothing.
        if case .object(let object) = json, object["__deferred"] != nil { return nil }
        guard let targetSet = model.entitySet(named: navigation.targetSet) else {
            throw .badRequest("The entity set \(navigation.targetSet) behind \(path) is not available.")
        }
        let targetType = model.entityType(of: targetSet)
        if navigation.multiplicity == .many {
            let items: [JSONValue]
            switch json {
            case .array(let array): items = array
            case .object(let object):
                guard case .array(let array)? = object["results"] else {
                    throw .badRequest("\(path) is a collection; send an array of entities, or {\"results\":[…]}.")
                }
                items = array
            default:
                throw .badRequest("\(path) is a collection; send an array of entities.")
            }
            var entities: [InlineEntity] = []
            for (index, item) in items.enumerated() {
                entities.append(try inlineEntity(item, targetType, path: "\(path)[\(index)]", depth: depth + 1))
            }
            return .many(entities)
        }
        if case .null = json { return .single(nil) }
        return .single(try inlineEntity(json, targetType, path: path, depth: depth + 1))
    }

    private func inlineEntity(_ json: JSONValue, _ type: EntityType, path: String, depth: Int) throws(ODataError) -> InlineEntity {
        guard case .object(let object) = json else {
            throw .badRequest("\(path) must be an entity object.")
        }
        // `{"__metadata": {"uri": …}}` and nothing else links to an existing entity (OData V2 binding).
        if object.count == 1, case .object(let metadata)? = object["__metadata"], case .string(let uri)? = metadata["uri"] {
            return .binding(uri: uri)
        }
        return .new(try decode(object: object, as: type, path: path, depth: depth))
    }
}

/// Checks a value against the facets of its column, so that both databases refuse the same values
/// with the same message (SQLite would store an over-long string silently).
package enum PropertyFacets {
    package static func check(_ value: ODataValue, against property: EntityProperty, path: String) throws(ODataError) {
        switch value {
        case .null:
            // A null for a generated column asks for the database's value: inserts leave the
            // column out, updates refuse to change it (GeneratedValues).
            guard property.isNullable || property.isServerGenerated else {
                throw .badRequest("The property \(property.name) of \(path) cannot be null.", target: property.name)
            }
        case .string(let text):
            // Both databases count characters (code points) against VARCHAR(n).
            if let maxLength = property.maxLength, text.unicodeScalars.count > maxLength {
                throw .badRequest("The property \(property.name) of \(path) is \(text.unicodeScalars.count) characters long; at most \(maxLength) are allowed.", target: property.name)
            }
        case .binary(let data):
            if let maxLength = property.maxLength, data.count > maxLength {
                throw .badRequest("The property \(property.name) of \(path) is \(data.count) bytes long; at most \(maxLength) are allowed.", target: property.name)
            }
        case .decimal(let decimal):
            try checkDecimal(decimal, property, path: path)
        default:
            break
        }
    }

    /// DECIMAL(p, s): at most s digits after the point and p - s before it. PostgreSQL would round
    /// extra fraction digits and SQLite would keep them; refusing keeps the stored value what was sent.
    private static func checkDecimal(_ value: Decimal, _ property: EntityProperty, path: String) throws(ODataError) {
        guard let precision = property.precision else { return }
        let scale = property.scale ?? 0
        var text = value.description
        if text.hasPrefix("-") { text.removeFirst() }
        guard !text.contains("e"), !text.contains("E") else { return }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integerDigits = parts[0].drop { $0 == "0" }.count
        let fractionDigits = parts.count > 1 ? parts[1].count : 0
        if fractionDigits > scale {
            throw .badRequest("The property \(property.name) of \(path) has \(fractionDigits) digits after the decimal point; at most \(scale) are allowed.", target: property.name)
        }
        if integerDigits > precision - scale {
            throw .badRequest("The property \(property.name) of \(path) is out of range: at most \(precision - scale) digits are allowed before the decimal point.", target: property.name)
        }
    }
}
