/// A JSON object of named members, in the order they were added (a `Dictionary` with a stable
/// order in memory, for the tests and for code that walks a document). Encoded documents sort their
/// members (``OpenAPIDocument/json()``): Foundation's encoder on Linux keeps no order of its own, and a
/// document that changed from one request to the next would defeat caches and diffs.
package struct OpenAPIMap<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    package private(set) var entries: [(key: String, value: Value)] = []

    package init() {}

    package init(_ entries: [(String, Value)]) {
        for (key, value) in entries { self[key] = value }
    }

    package var isEmpty: Bool { entries.isEmpty }
    package var keys: [String] { entries.map(\.key) }

    /// A member's value; setting one that exists replaces it in place.
    package subscript(key: String) -> Value? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let index = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    package static func == (lhs: OpenAPIMap, rhs: OpenAPIMap) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys { self[key.stringValue] = try container.decode(Value.self, forKey: key) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in entries { try container.encode(value, forKey: Key(stringValue: key)) }
    }
}
