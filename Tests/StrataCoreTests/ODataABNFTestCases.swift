import Foundation

/// One case of the OASIS OData ABNF test cases: the rule it tests, its input, and for a negative
/// case where the input stops being valid.
struct ODataABNFTestCase: Sendable, CustomStringConvertible {
    var name: String
    var rule: String
    var input: String
    /// Nil for a positive case.
    var failAt: Int?

    var description: String { "\(rule) \(failAt == nil ? "+" : "-") \(input)" }

    /// The cases file as the OASIS TC publishes it, read from `../shared/conformance/` beside the
    /// package: test data under the OASIS IPR policy, read where it lies and never copied here.
    static let fileURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/conformance/odata-abnf-testcases.yaml").standardizedFileURL

    static var fileExists: Bool { FileManager.default.fileExists(atPath: fileURL.path) }

    /// Reads the file's `TestCases:` list. The file uses a small part of YAML, which this reads without
    /// a YAML library (StrataCoreTests has none): entries `  - Name:` with keys `Rule`, `FailAt`,
    /// `Input` four spaces in, values plain, single- or double-quoted, continued on deeper-indented lines.
    static func load() throws -> [ODataABNFTestCase] {
        let text = try String(contentsOf: fileURL, encoding: .utf8)
        var cases: [ODataABNFTestCase] = []
        var fields: [String: String] = [:]
        var lastKey: String?
        var inCases = false
        func flush() {
            if let rule = fields["Rule"], let input = fields["Input"] {
                cases.append(ODataABNFTestCase(name: fields["Name"] ?? "", rule: rule, input: unquoted(input),
                                               failAt: fields["FailAt"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }))
            }
            fields = [:]
            lastKey = nil
        }
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("TestCases:") { inCases = true; continue }
            guard inCases, !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") else { continue }
            if line.hasPrefix("  - ") {
                flush()
                take(String(line.dropFirst(4)))
            } else if line.hasPrefix("    "), !line.hasPrefix("      "), line.contains(":") {
                take(String(line.dropFirst(4)))
            } else if line.hasPrefix("      "), let key = lastKey {
                // A continued (folded) value.
                let more = line.trimmingCharacters(in: .whitespaces)
                fields[key] = (fields[key].map { $0.isEmpty ? "" : $0 + " " } ?? "") + more
            } else if !line.hasPrefix(" "), !line.isEmpty {
                inCases = false
            }
        }
        flush()
        return cases

        func take(_ entry: String) {
            guard let colon = entry.firstIndex(of: ":") else { return }
            let key = String(entry[..<colon])
            let value = String(entry[entry.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            fields[key] = value
            lastKey = key
        }
    }

    /// A YAML scalar's text: `'…'` with `''` for a quote, `"…"` with backslash escapes, else as is.
    private static func unquoted(_ value: String) -> String {
        if value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") {
            return String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
        }
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
            var out = ""
            var escaped = false
            for c in value.dropFirst().dropLast() {
                if escaped {
                    switch c {
                    case "n": out.append("\n")
                    case "t": out.append("\t")
                    default: out.append(c)
                    }
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else {
                    out.append(c)
                }
            }
            return out
        }
        return value
    }
}
