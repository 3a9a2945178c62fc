extension JSONWriter {
    /// Writes a parsed document back: members in their order, numbers as they were written.
    public mutating func value(_ json: JSONValue) {
        switch json {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let text): raw(text)
        case .string(let text): string(text)
        case .array(let items):
            beginArray()
            for item in items { value(item) }
            endArray()
        case .object(let object):
            beginObject()
            for (name, member) in object {
                key(name)
                value(member)
            }
            endObject()
        }
    }
}
