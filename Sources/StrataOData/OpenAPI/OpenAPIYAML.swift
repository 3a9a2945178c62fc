import StrataCore

/// Writes a JSON tree as YAML 1.2 block style. Every string is a double-quoted scalar written with
/// JSON's escapes (YAML's double-quoted style is a superset of them), so no value can be misread as
/// a number, a boolean or `null`; keys go unquoted when they are plain words.
package enum OpenAPIYAML {
    package static func text(of value: JSONValue) -> String {
        var out = ""
        switch value {
        case .object(let object) where !object.entries.isEmpty: writeMembers(object, indent: 0, into: &out)
        case .array(let items) where !items.isEmpty: writeItems(items, indent: 0, into: &out)
        default: out = scalar(value) + "\n"
        }
        return out
    }

    private static func writeMembers(_ object: JSONObject, indent: Int, into out: inout String, firstInline: Bool = false) {
        for (index, (key, value)) in object.entries.enumerated() {
            if !(firstInline && index == 0) { out += String(repeating: " ", count: indent) }
            out += self.key(key) + ":"
            writeValue(value, indent: indent + 2, into: &out)
        }
    }

    private static func writeItems(_ items: [JSONValue], indent: Int, into out: inout String) {
        for item in items {
            out += String(repeating: " ", count: indent) + "-"
            switch item {
            case .object(let object) where !object.entries.isEmpty:
                out += " "
                writeMembers(object, indent: indent + 2, into: &out, firstInline: true)
            case .array(let nested) where !nested.isEmpty:
                out += "\n"
                writeItems(nested, indent: indent + 2, into: &out)
            default:
                out += " " + scalar(item) + "\n"
            }
        }
    }

    /// A member's value after its `key:`: on the same line when it is a scalar or empty.
    private static func writeValue(_ value: JSONValue, indent: Int, into out: inout String) {
        switch value {
        case .object(let object) where !object.entries.isEmpty:
            out += "\n"
            writeMembers(object, indent: indent, into: &out)
        case .array(let items) where !items.isEmpty:
            out += "\n"
            writeItems(items, indent: indent, into: &out)
        default:
            out += " " + scalar(value) + "\n"
        }
    }

    private static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return quoted(text)
        case .object: return "{}"
        case .array: return "[]"
        }
    }

    /// Letters, digits and `_ . $ -` not starting with a sign or digit read back as the same string.
    private static func key(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.$-".contains($0)) }
            && text.first.map { $0.isLetter || $0 == "_" || $0 == "$" } == true
            && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"].contains(text.lowercased())
        return plain ? text : quoted(text)
    }

    private static func quoted(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
