import StrataCore

/// What the serializer needs to write entities of one set: which properties are present and where,
/// how to build the entity's URI, and which navigation properties are expanded. Built once per
/// request; the JSON member names are escaped once here rather than once per row.
///
/// A class, and immutable: a shape holds a dozen arrays and strings, and as a struct every copy
/// (into a plan, a prepared read, a serializer call) retained each of them.
package final class EntityShape: Sendable {
    let set: EntitySet
    let type: EntityType
    /// The properties present in each row's `values`, in order.
    let properties: [EntityProperty]
    /// The properties written to JSON (all of `properties` unless `$select` narrowed them).
    package let writtenProperties: [Int]
    /// Positions of the key properties in `values`, in key order.
    package let keyPositions: [Int]
    /// Navigation properties written: expanded ones with their shape, others as `__deferred`.
    let navigations: [(property: NavigationProperty, expansion: EntityShape?)]
    let typeName: String
    let memberNames: [[UInt8]]
    /// `"PersonCar":` for each of `navigations`.
    let navigationMemberNames: [[UInt8]]
    /// `/PersonCar`, JSON-escaped, for each of `navigations`: appended to the entity's URI for `__deferred`.
    let navigationPathSuffixes: [[UInt8]]
    /// Positions in `values` of every property of the type, in the type's order, for the ETag;
    /// nil when the row does not hold them all.
    let etagPositions: [Int]?

    init(set: EntitySet, type: EntityType, properties: [EntityProperty], written: Set<String>? = nil,
         navigations: [(NavigationProperty, EntityShape?)]? = nil) {
        self.set = set
        self.type = type
        self.properties = properties
        self.writtenProperties = properties.indices.filter { written?.contains(properties[$0].name) ?? true }
        self.keyPositions = type.keyNames.map { key in properties.firstIndex { $0.name == key }! }
        self.navigations = navigations ?? type.navigationProperties.map { ($0, nil) }
        self.navigationMemberNames = self.navigations.map { JSONMemberName.quoted($0.property.name) }
        self.navigationPathSuffixes = self.navigations.map { navigation in
            var suffix: [UInt8] = [UInt8(ascii: "/")]
            JSONWriter.escape(navigation.property.name, into: &suffix)
            return suffix
        }
        self.typeName = type.qualifiedName
        self.memberNames = properties.map { JSONMemberName.quoted($0.name) }
        self.etagPositions = EntityTag.positions(of: type, in: properties)
    }

    /// The ETag of a row read in this shape; nil when the row lacks some property of the type.
    func entityTag(_ values: [ODataValue]) -> EntityTag? {
        etagPositions.map { EntityTag(properties: type.properties, row: values, positions: $0) }
    }

    /// The entity's URI relative to the service root: `Person(1)`.
    func relativeURI(_ values: [ODataValue]) -> String {
        set.name + keyText(values)
    }

    /// `(1)`, `(PartitionKey='a',RowKey='b')`: the key predicate of the row, percent-encoded.
    func keyText(_ values: [ODataValue]) -> String {
        let key = keyPositions.map { (name: properties[$0].name, value: values[$0]) }
        return KeyPredicate.forKey(key).urlText
    }

    /// Appends the entity's absolute URI, escaped for a JSON string, to `output`. A single integer
    /// key, the common case, is written digit by digit: streamed collections write one per row.
    func appendURI(_ values: [ODataValue], root: String, into output: inout [UInt8]) {
        JSONWriter.escape(root, into: &output)
        JSONWriter.escape(set.name, into: &output)
        if keyPositions.count == 1, let digits = Self.plainInteger(values[keyPositions[0]]) {
            output.append(UInt8(ascii: "("))
            output.append(contentsOf: String(digits).utf8)
            output.append(UInt8(ascii: ")"))
        } else {
            JSONWriter.escape(keyText(values), into: &output)
        }
    }

    /// Integers whose key literal is their digits alone (`Int64` keys carry an `L`).
    private static func plainInteger(_ value: ODataValue) -> Int? {
        switch value {
        case .byte(let v): return Int(v)
        case .sbyte(let v): return Int(v)
        case .int16(let v): return Int(v)
        case .int32(let v): return Int(v)
        default: return nil
        }
    }
}

enum JSONMemberName {
    /// `"name":` as JSON bytes.
    static func quoted(_ name: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(name.utf8.count + 3)
        JSONWriter.escape(name, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        return bytes
    }
}
