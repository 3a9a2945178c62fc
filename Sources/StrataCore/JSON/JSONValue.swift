/// A parsed JSON document. Numbers keep their text so that Int64 and Decimal values lose nothing.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number exactly as written, for example `12.50` or `-3E2`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// An integer number (or a string holding one, as OData writes Int64).
    public var int64Value: Int64? {
        switch self {
        case .number(let text), .string(let text): return Int64(text)
        default: return nil
        }
    }

    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    public var doubleValue: Double? {
        switch self {
        case .number(let text), .string(let text): return Double(text)
        default: return nil
        }
    }

    /// Parses a complete JSON document.
    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes), maximumDepth: maximumDepth)
        return try parser.parseDocument()
    }

    /// Parses the complete JSON document at `range` of `bytes`, without copying it out.
    static func parse(_ bytes: [UInt8], range: Range<Int>, maximumDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, range: range, maximumDepth: maximumDepth)
        return try parser.parseDocument()
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// The compact JSON text of this value.
    public var jsonString: String {
        var writer = JSONWriter()
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let b): writer.bool(b)
        case .number(let n): writer.raw(n)
        case .string(let s): writer.string(s)
        case .array(let items):
            writer.beginArray()
            for item in items { item.write(to: &writer) }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for (key, value) in object.entries {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.endObject()
        }
    }
}

/// A JSON object that keeps its members in document order.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var entries: [(key: String, value: JSONValue)]
    private var index: [String: Int]?

    /// The members in the order given; a name given twice keeps its first position and its last value.
    public init(_ entries: [(key: String, value: JSONValue)] = []) {
        // Distinct names (the usual case) are taken as they are: adding members one by one cost a
        // parsed page of entities most of its allocations (benchmarks, issue 10).
        if entries.count <= 16 {
            if !Self.repeatsName(entries) {
                self.entries = entries
                return
            }
        } else {
            var map = [String: Int](minimumCapacity: entries.count)
            var distinct = true
            for (i, entry) in entries.enumerated() where map.updateValue(i, forKey: entry.key) != nil {
                distinct = false
                break
            }
            if distinct {
                self.entries = entries
                self.index = map
                return
            }
        }
        self.entries = []
        for (key, value) in entries { self[key] = value }
    }

    /// Members already known to have distinct names (the parser checked them).
    init(distinctEntries entries: [(key: String, value: JSONValue)]) {
        self.entries = entries
        if entries.count > 16 {
            var map = [String: Int](minimumCapacity: entries.count)
            for (i, entry) in entries.enumerated() { map[entry.key] = i }
            index = map
        }
    }

    private static func repeatsName(_ entries: [(key: String, value: JSONValue)]) -> Bool {
        repeatedName(in: entries[...]) != nil
    }

    /// The first name given twice, if any.
    static func repeatedName(in entries: ArraySlice<(key: String, value: JSONValue)>) -> String? {
        if entries.count <= 16 {
            // Pairwise, without allocating: clients parse one of these per entity of every page.
            var i = entries.index(after: entries.startIndex)
            while i < entries.endIndex {
                var j = entries.startIndex
                while j < i {
                    if entries[j].key == entries[i].key { return entries[i].key }
                    j += 1
                }
                i += 1
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: entries.count)
        for entry in entries where !seen.insert(entry.key).inserted { return entry.key }
        return nil
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let i = position(of: key) {
                if let newValue {
                    entries[i].value = newValue
                } else {
                    entries.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                entries.append((key, newValue))
                if index != nil {
                    index![key] = entries.count - 1
                } else if entries.count > 16 {
                    rebuildIndex()
                }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        guard entries.count > 16 else { index = nil; return }
        var map = [String: Int](minimumCapacity: entries.count)
        for (i, entry) in entries.enumerated() where map[entry.key] == nil { map[entry.key] = i }
        index = map
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        entries.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        for (key, value) in lhs.entries where rhs[key] != value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}

/// Why a JSON document could not be parsed, with the byte offset where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}
