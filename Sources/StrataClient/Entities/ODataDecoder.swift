import Foundation
import StrataCore

/// Decodes OData JSON — V2 verbose JSON and V4 JSON — into `Decodable` types.
///
/// It reads the wire format so your models do not have to:
/// - a response's `{"d": …}` wrapper, and a collection's `{"results": […], "__count", "__next"}`
///   wrapper (V2), bare array (V1) or `{"value": […], "@odata.count", …}` (V4), wherever an array
///   is expected, including expanded navigation;
/// - `__metadata` and V4's control information (`@odata.etag`, `Nav@odata.navigationLink`, …) are
///   skipped (declare `__metadata: EntityMetadata?` to keep V2's), a deferred navigation property
///   (`{"__deferred": …}`) decodes as `nil`;
/// - `Date` from `"/Date(ms)/"`, `"/Date(ms+0100)/"` or ISO 8601; `Int64`, `Decimal` and the other
///   numbers from JSON numbers or strings; `Data` from base64; `Double` from `"NaN"`, `"INF"`, `"-INF"`;
///   `UUID`, `URL`, and StrataCore's ``ODataDateTime``, ``ODataDateTimeOffset`` and ``ODataTime``.
///
/// ```swift
/// struct Person: Decodable { var personID: Int; var lastName: String; var createDate: Date }
/// let people = try ODataDecoder().decode([Person].self, from: response.body)
/// ```
public struct ODataDecoder: Sendable {
    /// A decoder; it has no options, because the wire format has none.
    public init() {}

    /// Decodes a response body, removing the `{"d": …}` wrapper first.
    public func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        let json: JSONValue
        do {
            json = try JSONValue.parse(body)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The body is not JSON: \(error)", underlyingError: error))
        }
        return try decode(type, from: Self.unwrapped(json))
    }

    /// Decodes a JSON value that is already unwrapped: an entity, a collection, a property value.
    public func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        try ValueDecoder(value: json, codingPath: []).decodeValue(type)
    }

    /// The contents of a `{"d": …}` wrapper, or the value itself when it has none.
    public static func unwrapped(_ json: JSONValue) -> JSONValue {
        if case .object(let root) = json, root.count == 1, let inner = root["d"] { return inner }
        return json
    }

    /// A `DecodingError` as one line: where (`PersonCar[0].Car.model`) and what.
    public static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "" : text + ": "
        }
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return path(context.codingPath) + context.debugDescription
        case .keyNotFound(let key, let context):
            return path(context.codingPath) + "no value for \(key.stringValue)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The `Decoder` behind ``ODataDecoder``: one JSON value and where it sits.
struct ValueDecoder: Decoder {
    let value: JSONValue
    /// The path is kept as the parent's path and this value's key, and joined only when asked for
    /// (by an error or a nested container): joining it for every property read was two arrays per
    /// value, a third of a page's allocations.
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var codingPath: [any CodingKey] {
        guard let key else { return parentPath }
        return parentPath + [key]
    }

    init(value: JSONValue, codingPath: [any CodingKey]) {
        self.init(value: value, parentPath: codingPath, key: nil)
    }

    /// The decoder of the value at `key` in a container whose path is `parentPath`.
    init(value: JSONValue, parentPath: [any CodingKey], key: (any CodingKey)?) {
        self.value = value
        self.parentPath = parentPath
        self.key = key
    }

    /// A deferred navigation property counts as absent.
    var isNil: Bool {
        if case .null = value { return true }
        if case .object(let object) = value, object["__deferred"] != nil { return true }
        return false
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: String].self, "an object") }
        if object["__deferred"] != nil {
            throw DecodingError.valueNotFound(
                [String: String].self,
                .init(codingPath: codingPath, debugDescription: "The navigation property is not expanded; expand it or make it optional"))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let items):
            return UnkeyedContainer(items: items, codingPath: codingPath)
        case .object(let object):
            if case .array(let items)? = object["results"] { return UnkeyedContainer(items: items, codingPath: codingPath) }
            if case .array(let items)? = object["value"], object.keys.allSatisfy({ $0 == "value" || $0.hasPrefix("@") }) {
                return UnkeyedContainer(items: items, codingPath: codingPath)
            }
            if object["__deferred"] != nil {
                throw DecodingError.valueNotFound(
                    [String].self,
                    .init(codingPath: codingPath, debugDescription: "The navigation property is not expanded; expand it or make it optional"))
            }
            throw mismatch([String].self, "an array, a {\"results\": […]} or a {\"value\": […]} collection")
        default:
            throw mismatch([String].self, "an array")
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    func child(_ value: JSONValue, key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, parentPath: codingPath, key: key)
    }

    /// Decodes `type`, reading Foundation types whose own `Decodable` implementations expect other
    /// JSON forms (`Date` as seconds, `Decimal` as a keyed structure, `Data` as an array of bytes)
    /// the way OData writes them.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is Date.Type: return try decodeDate() as! T
        case is Decimal.Type: return try primitive(.decimal) { if case .decimal(let v) = $0 { v } else { nil } } as! T
        case is Data.Type: return try primitive(.binary) { if case .binary(let v) = $0 { v } else { nil } } as! T
        case is UUID.Type: return try primitive(.guid) { if case .guid(let v) = $0 { v } else { nil } } as! T
        case is URL.Type:
            guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch(URL.self, "a URL string") }
            return url as! T
        default:
            return try T(from: self)
        }
    }

    func decodeDate() throws -> Date {
        if case .string(let text) = value {
            if let dateTime = ODataJSON.parseDateTime(text) { return dateTime.date }
            if let offset = ODataDateTimeOffset.parse(text) { return offset.utc.date }
        }
        throw mismatch(Date.self, "\"/Date(1257008908440)/\" or an ISO 8601 date")
    }

    /// Reads the value as an EDM type through StrataCore's `ODataJSON`, the server's own reader.
    func primitive<V>(_ edmType: EDMPrimitiveType, _ extract: (ODataValue) -> V?) throws -> V {
        let decoded: ODataValue
        do {
            decoded = try ODataJSON.decode(value, as: edmType)
        } catch {
            throw DecodingError.typeMismatch(V.self, .init(codingPath: codingPath, debugDescription: error.message, underlyingError: error))
        }
        guard let result = extract(decoded) else {
            throw DecodingError.valueNotFound(V.self, .init(codingPath: codingPath, debugDescription: "Expected \(edmType.rawValue), found null"))
        }
        return result
    }

    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let wide = try primitive(.int64) { $0.integerValue }
        guard let narrow = I(exactly: wide) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(wide) does not fit in \(I.self)"))
        }
        return narrow
    }

    func decodeUnsignedInteger<I: FixedWidthInteger & UnsignedInteger>(_ type: I.Type) throws -> I {
        // UInt64 values above Int64.max only exist as text; read those directly.
        if let text = value.textForm, let direct = I(text) { return direct }
        return try decodeInteger(type)
    }

    func decodeDouble() throws -> Double {
        try primitive(.double) { $0.doubleValue }
    }

    func decodeBool() throws -> Bool {
        try primitive(.boolean) { if case .boolean(let v) = $0 { v } else { nil } }
    }

    func decodeString() throws -> String {
        if case .string(let text) = value { return text }
        if case .null = value {
            throw DecodingError.valueNotFound(String.self, .init(codingPath: codingPath, debugDescription: "Expected a string, found null"))
        }
        throw mismatch(String.self, "a string")
    }

    func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Expected \(expected), found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected \(expected), found \(value.shortDescription)"))
    }
}

extension JSONValue {
    /// The text of a number or string.
    var textForm: String? {
        switch self {
        case .number(let text), .string(let text): return text
        default: return nil
        }
    }

    /// The value for messages, shortened.
    var shortDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .number(let n): return "the number \(n)"
        case .string(let s): return "the string \"\(s.count > 40 ? s.prefix(40) + "…" : s)\""
        case .array: return "an array"
        case .object(let o): return o["__deferred"] != nil ? "a deferred navigation property" : "an object"
        }
    }
}
