import Foundation

/// One case of the OASIS OData ABNF test files (`odata-*-testcases.yaml`): the rule it tests, the
/// input, and for a negative case where the input stops being valid.
struct ConformanceCase: Sendable, CustomStringConvertible {
    /// The case's name, with ` #2`, ` #3`… added to names the file repeats, so that each is unique.
    var name: String
    var rule: String
    var input: String
    /// Set for negative cases (the input must be refused); 0 means the whole input.
    var failAt: Int?

    var description: String { name }

    /// Reads the `TestCases:` list of a test-case file. The files use a small part of YAML (a list
    /// of mappings whose plain or quoted scalars may be folded over several lines), which is all this
    /// reads: the test target takes no YAML dependency for it.
    static func load(_ url: URL) throws -> [ConformanceCase] {
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "TestCases:") else { return [] }
        var cases: [ConformanceCase] = []
        var fields: [String: String] = [:]
        var currentKey: String?
        func finish() {
            if let name = fields["Name"], let rule = fields["Rule"], let input = fields["Input"] {
                cases.append(ConformanceCase(name: name, rule: rule, input: input,
                                             failAt: fields["FailAt"].flatMap { Int($0) }))
            }
            fields = [:]
            currentKey = nil
        }
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            var content = Substring(line)
            if line.hasPrefix("  - ") {
                finish()
                content = line.dropFirst(4)
            } else if line.hasPrefix("    "), line.dropFirst(4).first?.isLetter == true {
                content = line.dropFirst(4)
            } else {
                // A continuation line of a folded scalar (or an `Expect` list item, which is ignored).
                if let key = currentKey, !trimmed.hasPrefix("- ") {
                    let joined = fields[key].map { $0.isEmpty ? trimmed : $0 + " " + trimmed } ?? trimmed
                    fields[key] = joined
                }
                continue
            }
            guard let colon = content.firstIndex(of: ":") else { continue }
            let key = String(content[..<colon])
            var value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if key == "FailAt", let comment = value.firstIndex(of: "#") {
                value = value[..<comment].trimmingCharacters(in: .whitespaces)
            }
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            fields[key] = value
            currentKey = key == "Expect" ? nil : key
        }
        finish()
        var seen: [String: Int] = [:]
        for index in cases.indices {
            let count = seen[cases[index].name, default: 0] + 1
            seen[cases[index].name] = count
            if count > 1 { cases[index].name += " #\(count)" }
        }
        return cases
    }
}
