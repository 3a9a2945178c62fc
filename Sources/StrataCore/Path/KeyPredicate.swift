/// The key in parentheses after an entity set or collection navigation: `(1)` or `(PartitionKey='a',RowKey='b')`.
public enum KeyPredicate: Sendable, Hashable {
    /// A single unnamed value, for entity types with a one-property key.
    case single(ODataValue)
    /// Named values, in the order written.
    case named([NamedKeyValue])

    public struct NamedKeyValue: Sendable, Hashable {
        public var name: String
        public var value: ODataValue
        public init(name: String, value: ODataValue) {
            self.name = name
            self.value = value
        }
    }

    /// The predicate for an entity's key values, in key order: single-property keys are written unnamed.
    public static func forKey(_ values: [(name: String, value: ODataValue)]) -> KeyPredicate {
        if values.count == 1 { return .single(values[0].value) }
        return .named(values.map { NamedKeyValue(name: $0.name, value: $0.value) })
    }

    /// The predicate for the values of the key properties `names`, in the same order.
    public static func forKey(names: [String], values: [ODataValue]) -> KeyPredicate {
        forKey(zip(names, values).map { (name: $0, value: $1) })
    }

    /// `(1)` or `(PartitionKey='a',RowKey='b')`, percent-encoded for use in a URL path, with V2's literals.
    public var urlText: String { urlText(version: .v2) }

    /// The same with the literals of `version`: V4 writes `(5000000000)`, `(01234567-…)` and
    /// `(2009-11-01)` where V2 writes `(5000000000L)`, `(guid'01234567-…')` and `(datetime'2009-11-01T00:00')`.
    public func urlText(version: ODataVersion) -> String {
        func format(_ value: ODataValue) -> String {
            version.isV4 ? QueryPrinter.v4Literal(value) : ODataLiteral.format(value)
        }
        switch self {
        case .single(let value):
            return "(" + PercentEncoding.encodePathLiteral(format(value)) + ")"
        case .named(let pairs):
            let parts = pairs.map { "\($0.name)=" + PercentEncoding.encodePathLiteral(format($0.value)) }
            return "(" + parts.joined(separator: ",") + ")"
        }
    }

    /// Parses the text between the parentheses (already percent-decoded).
    public static func parse(_ text: Substring) throws(ODataError) -> KeyPredicate {
        // `Person(1)`, by far the most common key, without splitting or copying.
        if let number = ODataLiteral.shortInteger(text.utf8) { return .single(.int32(number)) }
        let parts = try splitTopLevel(text, on: ",")
        guard !parts.isEmpty, !(parts.count == 1 && parts[0].isEmpty) else {
            throw .badRequest("The key predicate () is empty; write the key value, for example Person(1).")
        }
        let namedCount = parts.filter { topLevelIndex(of: "=", in: $0) != nil }.count
        if parts.count == 1, namedCount == 0 {
            return .single(try literal(parts[0]))
        }
        if namedCount == 0 {
            throw .badRequest("The key predicate (\(text)) has \(parts.count) unnamed values; a key of several properties names each one, as in (PartitionKey='a',RowKey='b').")
        }
        var named: [NamedKeyValue] = []
        for part in parts {
            guard let eq = topLevelIndex(of: "=", in: part) else {
                throw .badRequest("The key predicate (\(text)) mixes named and unnamed values; name every key property, as in (PartitionKey='a',RowKey='b').")
            }
            let name = part[..<eq].trimmingSpaces()
            guard !name.isEmpty else { throw .badRequest("A key value in (\(text)) has no property name before '='.") }
            if named.contains(where: { $0.name == name }) {
                throw .badRequest("The key property \(name) appears twice in (\(text)).")
            }
            named.append(NamedKeyValue(name: String(name), value: try literal(part[part.index(after: eq)...])))
        }
        return .named(named)
    }

    private static func literal(_ text: Substring) throws(ODataError) -> ODataValue {
        do {
            return try ODataLiteral.parse(text.trimmingSpaces())
        } catch {
            throw .badRequest("Malformed key: \(error.message).")
        }
    }

    /// Splits on a separator outside single-quoted strings (`'a,b',2` is two parts).
    ///
    /// Quotes are found among UTF-8 bytes, not characters: a quote followed by a combining mark is
    /// one `Character` but still ends the string, and ASCII bytes never occur inside a multi-byte
    /// character. The separator is ASCII.
    public static func splitTopLevel(_ text: Substring, on separator: Unicode.Scalar) throws(ODataError) -> [Substring] {
        precondition(separator.isASCII, "separators are ASCII")
        let separatorByte = UInt8(separator.value)
        var parts: [Substring] = []
        var inQuote = false
        var start = text.startIndex
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                inQuote.toggle()
            } else if byte == separatorByte && !inQuote {
                parts.append(text[start..<index])
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        guard !inQuote else { throw .badRequest("The key (\(text)) has a string that is not closed with a quote.") }
        parts.append(text[start...])
        return parts
    }

    static func topLevelIndex(of target: Unicode.Scalar, in text: Substring) -> Substring.Index? {
        precondition(target.isASCII, "targets are ASCII")
        let targetByte = UInt8(target.value)
        var inQuote = false
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") { inQuote.toggle() } else if byte == targetByte && !inQuote { return index }
            index = bytes.index(after: index)
        }
        return nil
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " { s = s.dropFirst() }
        while let l = s.last, l == " " { s = s.dropLast() }
        return s
    }
}
