import Foundation
import StrataCore

/// One entity as the server sent it, read without a Swift type: properties by name, its
/// `__metadata` (V2) or `@odata` control information (V4), and expanded navigation properties.
///
/// ```swift
/// let person = try await service.set("Person").key(1).expand("PersonCar/Car").get()
/// person["lastName"]                                   // .string("Samson")
/// try person.value("createDate", as: Date.self)       // 2009-10-31 17:08:28 +0000
/// for link in person.related("PersonCar") {
///     print(link.relatedEntity("Car")?["model"] ?? .null)
/// }
/// ```
///
/// Verbose JSON does not say which EDM type a value has, so ``subscript(_:)`` infers it from the JSON
/// form. The `value(_:as:)` methods read exactly the EDM or Swift type you name, including `Edm.Int64`
/// and `Edm.Decimal`, which travel as strings, and `value(_:in:)` reads the type the service's
/// ``DataService/model()`` declares.
public struct Entity: Sendable, Hashable {
    /// The entity's JSON object as received, `__metadata` included.
    ///
    /// In V4 the client completes minimal metadata as full metadata would have it: it adds
    /// `@odata.id` (computed from the entity set and the key) and `@odata.type` when the service
    /// left them out, and makes a relative `@odata.id` absolute.
    public let json: JSONObject

    /// An entity over a JSON object from a response (or one you built, for tests and previews).
    public init(json: JSONObject) {
        self.json = json
    }

    /// The entity's URL, type and ETag: V2's `__metadata` object, or V4's `@odata.id`,
    /// `@odata.type` and `@odata.etag`; nil when the server sent none of them.
    public var metadata: EntityMetadata? {
        if case .object(let object)? = json["__metadata"] {
            return EntityMetadata(uri: object["uri"]?.stringValue.flatMap(URL.init(string:)),
                                  type: object["type"]?.stringValue,
                                  etag: object["etag"]?.stringValue)
        }
        return ControlInformation(json).metadata
    }

    /// The entity's canonical URL, from `__metadata.uri` (V2) or `@odata.id` (V4).
    public var uri: URL? { metadata?.uri }
    /// The namespace-qualified type name, from `__metadata.type` (V2) or `@odata.type` (V4).
    public var type: String? { metadata?.type }
    /// The ETag, from `__metadata.etag` (V2) or `@odata.etag` (V4).
    public var etag: String? { metadata?.etag }

    /// Names of the primitive properties, in the order the server wrote them.
    public var propertyNames: [String] {
        json.entries.compactMap { entry in
            switch entry.value {
            case .object, .array: return nil
            default: return ControlInformation.isControl(entry.key) ? nil : entry.key
            }
        }
    }

    /// Names of the navigation properties, deferred or expanded.
    public var navigationNames: [String] {
        json.entries.compactMap { entry in
            switch entry.value {
            case .object, .array: return ControlInformation.isControl(entry.key) ? nil : entry.key
            default: return nil
            }
        }
    }

    /// A primitive property's value with its type inferred from the JSON form; nil when the entity
    /// has no such property or it is a navigation property.
    ///
    /// Numbers become `Edm.Int32` (`Edm.Int64` when too large) or `Edm.Double`, `"/Date(…)/"` strings
    /// `Edm.DateTime`, other strings `Edm.String`. Int64, Decimal, Guid, Time, DateTimeOffset and Binary
    /// values therefore read as strings here; ask for them with `value(_:as:)` or `value(_:in:)`.
    public subscript(name: String) -> ODataValue? {
        guard let value = json[name] else { return nil }
        switch value {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .number(let text):
            if let integer = Int64(text) { return Int32(exactly: integer).map(ODataValue.int32) ?? .int64(integer) }
            return Double(text).map(ODataValue.double)
        case .string(let text):
            if text.hasPrefix("/Date(") || text.hasPrefix("\\/Date("), let date = ODataJSON.parseDateTime(text) {
                return .dateTime(date)
            }
            return .string(text)
        case .object, .array:
            return nil
        }
    }

    /// A property read as the EDM type you name, in any JSON form OData allows for it.
    ///
    /// - Throws: ``StrataError/Kind/decoding`` when the property is missing or is not a valid value of `type`.
    public func value(_ name: String, as type: EDMPrimitiveType) throws(StrataError) -> ODataValue {
        guard let json = json[name] else { throw missing(name) }
        do {
            return try ODataJSON.decode(json, as: type)
        } catch {
            throw StrataError(.decoding, url: uri, message: "\(name): \(error.message)", underlying: error)
        }
    }

    /// A property decoded into a Swift type: `Date`, `Int64`, `Decimal`, `String?`, a `Decodable`
    /// struct for an expanded to-one navigation, an array for a to-many one.
    ///
    /// - Throws: ``StrataError/Kind/decoding`` when the property is missing (ask for an `Optional` to
    ///   accept null) or does not fit `type`.
    public func value<T: Decodable>(_ name: String, as type: T.Type = T.self) throws(StrataError) -> T {
        guard let json = json[name] else {
            if let optional = type as? any ExpressibleByNilLiteral.Type, let none = optional.init(nilLiteral: ()) as? T {
                return none
            }
            throw missing(name)
        }
        do {
            return try ODataDecoder().decode(type, from: json)
        } catch {
            throw StrataError(.decoding, url: uri, message: "\(name): \(ODataDecoder.describe(error))", underlying: error)
        }
    }

    /// The whole entity decoded into a `Decodable` type, skipping `__metadata` and deferred navigation.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws(StrataError) -> T {
        do {
            return try ODataDecoder().decode(type, from: JSONValue.object(json))
        } catch {
            throw StrataError(.decoding, url: uri, message: "\(T.self): \(ODataDecoder.describe(error))", underlying: error)
        }
    }

    /// A navigation property: deferred (its URL: V2's `__deferred`, V4's `@odata.navigationLink`)
    /// or expanded (its entities); nil when absent.
    public func navigation(_ name: String) -> NavigationValue? {
        guard let value = json[name] else {
            // V4's full metadata names a navigation it did not expand by its link.
            guard let link = json[name + "@odata.navigationLink"]?.stringValue else { return nil }
            return .deferred(URL(string: link, relativeTo: uri)?.absoluteURL)
        }
        switch value {
        case .null:
            return .entity(nil)
        case .array(let items):
            return .entities(items.compactMap { $0.objectValue.map(Entity.init(json:)) })
        case .object(let object):
            if case .object(let deferred)? = object["__deferred"] {
                return .deferred(deferred["uri"]?.stringValue.flatMap(URL.init(string:)))
            }
            if case .array(let items)? = object["results"] {
                return .entities(items.compactMap { $0.objectValue.map(Entity.init(json:)) })
            }
            return .entity(Entity(json: object))
        default:
            return nil
        }
    }

    /// The entities of an expanded navigation property: all of a to-many one, the one of a to-one
    /// one; empty when it is deferred, empty or absent.
    public func related(_ name: String) -> [Entity] {
        switch navigation(name) {
        case .entities(let entities)?: return entities
        case .entity(let entity?)?: return [entity]
        default: return []
        }
    }

    /// The entity of an expanded to-one navigation property; nil when deferred, empty or absent.
    public func relatedEntity(_ name: String) -> Entity? {
        if case .entity(let entity)? = navigation(name) { return entity }
        return nil
    }

    private func missing(_ name: String) -> StrataError {
        let known = propertyNames + navigationNames
        return StrataError(.decoding, url: uri,
                           message: "The entity has no property \(name); it has \(known.joined(separator: ", ")).")
    }
}
