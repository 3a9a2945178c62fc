import Foundation
import StrataCore

/// Encodes `Encodable` values as OData request bodies: V2 verbose JSON, or V4 JSON.
///
/// Values take the forms the server reads most exactly. In V2: `Date` as `"/Date(ms)/"`, `Int64`,
/// `UInt64` and `Decimal` as strings (JavaScript numbers would lose digits), `Data` as base64. In
/// V4: `Date` in ISO 8601 (`"2009-10-31T17:08:28.440Z"`), `Int64`, `UInt64` and `Decimal` as JSON
/// numbers with every digit, `Data` as base64url. In both, non-finite
/// doubles as `"NaN"`, `"INF"`, `"-INF"`, UUIDs in lowercase. Nested values and arrays are written
/// inline, which is how a deep insert sends related entities with their parent. Optional properties
/// that are `nil` are left out by synthesized `Encodable` conformances, which is what a partial
/// update (MERGE) wants; encode `nil` explicitly to set a property to null.
///
/// ```swift
/// struct NewPerson: Encodable { var firstName: String; var lastName: String }
/// let body = try ODataEncoder().encode(NewPerson(firstName: "Ann", lastName: "Lee"))
/// ```
public struct ODataEncoder: Sendable {
    /// The OData version whose JSON the encoder writes.
    public var version: ODataVersion

    /// An encoder for the JSON of `version`: verbose JSON for ``ODataVersion/v1`` and
    /// ``ODataVersion/v2``, V4 JSON for ``ODataVersion/v4``.
    public init(version: ODataVersion = .v2) {
        self.version = version
    }

    /// The value as a JSON value.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = EncodingNode(v4: version.isV4)
        try ValueEncoder(node: root, codingPath: []).encodeValue(value)
        return root.json
    }

    /// The value as JSON text bytes, ready to send.
    public func encodeBody(_ value: some Encodable) throws -> [UInt8] {
        var writer = JSONWriter()
        try encode(value).write(to: &writer)
        return writer.bytes
    }
}

/// One value being built; containers append child nodes before encoding into them, so nested
/// encoders fill the tree in place.
final class EncodingNode {
    package enum Content {
        case empty
        case value(JSONValue)
        case object([(key: String, node: EncodingNode)])
        case array([EncodingNode])
    }

    var content: Content = .empty
    /// Whether values take V4's forms; children inherit it.
    let v4: Bool

    init(v4: Bool) {
        self.v4 = v4
    }

    var json: JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let value): return value
        case .object(let members): return .object(JSONObject(members.map { (key: $0.key, value: $0.node.json) }))
        case .array(let items): return .array(items.map(\.json))
        }
    }

    func child(forKey key: String) -> EncodingNode {
        var members: [(key: String, node: EncodingNode)] = []
        if case .object(let existing) = content { members = existing }
        if let found = members.first(where: { $0.key == key }) { return found.node }
        let node = EncodingNode(v4: v4)
        members.append((key, node))
        content = .object(members)
        return node
    }

    func appendChild() -> EncodingNode {
        var items: [EncodingNode] = []
        if case .array(let existing) = content { items = existing }
        let node = EncodingNode(v4: v4)
        items.append(node)
        content = .array(items)
        return node
    }
}

/// The `Encoder` behind ``ODataEncoder``.
struct ValueEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleEncoder(encoder: self)
    }

    func set(_ value: JSONValue) {
        node.content = .value(value)
    }

    /// Encodes `value`, writing Foundation types whose own `Encodable` forms are not OData's
    /// (`Date` as seconds, `Decimal` as a structure, `Data` as bytes) the OData way.
    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let date as Date where node.v4: set(.string(ODataDateTime(date).isoString + "Z"))
        case let date as Date: set(.string("/Date(\(ODataDateTime(date).millisecondsSince1970))/"))
        case let decimal as Decimal: set(node.v4 ? .number(decimal.description) : .string(decimal.description))
        case let data as Data where node.v4: set(.string(Base64URL.encode(Array(data))))
        case let data as Data: set(.string(data.base64EncodedString()))
        case let url as URL: set(.string(url.absoluteString))
        case let uuid as UUID: set(.string(uuid.uuidString.lowercased()))
        default: try value.encode(to: self)
        }
    }

    static func number(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value < 0 ? "-INF" : "INF") }
        return .number(String(value))
    }
}

struct SingleEncoder: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.set(.null) }
    mutating func encode(_ value: Bool) throws { encoder.set(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.set(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.set(ValueEncoder.number(value)) }
    mutating func encode(_ value: Float) throws { encoder.set(ValueEncoder.number(Double(value))) }
    mutating func encode(_ value: Int) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { encoder.set(encoder.node.v4 ? .number(String(value)) : .string(String(value))) }
    mutating func encode(_ value: UInt) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.set(encoder.node.v4 ? .number(String(value)) : .string(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func encoder(for key: Key) -> ValueEncoder {
        ValueEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    private func single(_ key: Key) -> SingleEncoder { SingleEncoder(encoder: encoder(for: key)) }

    mutating func encodeNil(forKey key: Key) throws { encoder(for: key).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { var s = single(key); try s.encode(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder(for: key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder(for: Key(stringValue: "super")!) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(for: key) }
}

struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let items) = node.content { return items.count }
        return 0
    }

    private func next() -> ValueEncoder {
        let index = count
        return ValueEncoder(node: node.appendChild(), codingPath: codingPath + [IndexKey(index)])
    }

    private func single() -> SingleEncoder { SingleEncoder(encoder: next()) }

    mutating func encodeNil() throws { next().set(.null) }
    mutating func encode(_ value: Bool) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: String) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Double) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Float) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Int) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Int8) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Int16) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Int32) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: Int64) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: UInt) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: UInt8) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: UInt16) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: UInt32) throws { var s = single(); try s.encode(value) }
    mutating func encode(_ value: UInt64) throws { var s = single(); try s.encode(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        next().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { next() }
}
