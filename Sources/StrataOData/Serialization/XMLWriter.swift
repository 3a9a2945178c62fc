/// A small XML writer for `$metadata` and the AtomPub service document: elements, attributes, escaping.
struct XMLWriter {
    private(set) var text = "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>"
    private var open: [String] = []

    mutating func start(_ name: String, _ attributes: [(String, String)] = []) {
        text += "<\(name)" + Self.attributes(attributes) + ">"
        open.append(name)
    }

    mutating func empty(_ name: String, _ attributes: [(String, String)] = []) {
        text += "<\(name)" + Self.attributes(attributes) + " />"
    }

    mutating func element(_ name: String, text content: String) {
        text += "<\(name)>\(Self.escape(content))</\(name)>"
    }

    mutating func end() {
        text += "</\(open.removeLast())>"
    }

    static func attributes(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.count)
        for c in value {
            switch c {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(c)
            }
        }
        return escaped
    }
}
