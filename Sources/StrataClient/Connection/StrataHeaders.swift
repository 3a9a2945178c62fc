/// HTTP header fields: names compare without regard to case, order and repeated names are kept.
///
/// Names are plain strings, so OData's own headers (`DataServiceVersion`, `Content-ID`) read as
/// literals: `["MaxDataServiceVersion": "2.0"]`. The `Strata` prefix keeps the name apart from the
/// `HTTPHeaders` of NIO, Vapor or Alamofire in an app that uses one of them too.
public struct StrataHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in the order they were added, names as written.
    public private(set) var fields: [(name: String, value: String)]

    /// No headers.
    public init() {
        fields = []
    }

    /// Headers with these fields, in order.
    public init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// Headers written as a literal, `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value for `name`; setting replaces every field of that name (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            guard let newValue else {
                fields.removeAll { Self.same($0.name, name) }
                return
            }
            if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
                fields[index].value = newValue
                var i = fields.index(after: index)
                while i < fields.endIndex {
                    if Self.same(fields[i].name, name) { fields.remove(at: i) } else { i += 1 }
                }
            } else {
                fields.append((name, newValue))
            }
        }
    }

    /// Every value given for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Adds a field without replacing earlier fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// These headers with `other`'s fields replacing any of the same name.
    public func merging(_ other: StrataHeaders) -> StrataHeaders {
        var merged = self
        for name in Set(other.fields.map { $0.name.lowercased() }) {
            merged[name] = nil
        }
        merged.fields.append(contentsOf: other.fields)
        return merged
    }

    /// True when there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: StrataHeaders, rhs: StrataHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { same($0.name, $1.name) && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Header names are ASCII tokens, so comparing bytes with ASCII case folding is exact.
    private static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
}
