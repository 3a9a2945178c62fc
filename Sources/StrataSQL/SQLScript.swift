import StrataCore
import Foundation

/// The statements of a SQL script file that ships with Strata (the demo services' schemas and data)
/// or that an operator points Strata at: the one way to run SQL text that Swift source does not
/// hold. It reads a file, so request input cannot reach it; client SQL goes through ``ClientSQL``.
package struct SQLScript: Sendable {
    /// The file's statements, split at `;` outside quotes and comments, without binds.
    package let statements: [SQLStatement]

    /// Reads and splits a script file.
    package init(contentsOf file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        statements = Self.statements(in: text).map { SQLStatement(text: $0, binds: []) }
    }

    /// Reads a script written once for both databases: each `{{name}}` in the file is replaced by
    /// `spellings[name]`, this database's spelling of what the two do not share (a key that numbers
    /// new rows, a timestamp type). The spellings are fixed text in Swift source, so the script
    /// still holds only what the file and the code hold.
    package init(contentsOf file: URL, spellings: [String: StaticString]) throws {
        let text = try Self.render(String(contentsOf: file, encoding: .utf8), spellings: spellings)
        statements = Self.statements(in: text).map { SQLStatement(text: $0, binds: []) }
    }

    /// A script's text with its `{{name}}` placeholders replaced; an unknown or unclosed
    /// placeholder is an error, not text.
    package static func render(_ source: String, spellings: [String: StaticString]) throws(SQLScriptError) -> String {
        var output = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw SQLScriptError("a script has an unclosed {{ placeholder")
            }
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let spelling = spellings[name] else {
                throw SQLScriptError("a script uses the unknown placeholder {{\(name)}}")
            }
            output += spelling.description
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    static func statements(in script: String) -> [String] {
        var statements: [String] = []
        var current: [Character] = []
        var characters = Array(script)
        characters.append("\n")
        var i = 0
        func flush() {
            let statement = String(current).trimmingWhitespace()
            if !statement.isEmpty { statements.append(statement) }
            current.removeAll(keepingCapacity: true)
        }
        while i < characters.count {
            let c = characters[i]
            let next: Character? = i + 1 < characters.count ? characters[i + 1] : nil
            switch c {
            case "'", "\"":
                // Copy the quoted text; a doubled quote stays inside it.
                current.append(c)
                i += 1
                while i < characters.count {
                    current.append(characters[i])
                    if characters[i] == c {
                        if i + 1 < characters.count, characters[i + 1] == c {
                            current.append(c)
                            i += 2
                            continue
                        }
                        break
                    }
                    i += 1
                }
            case "-" where next == "-":
                while i < characters.count, characters[i] != "\n" { i += 1 }
                current.append("\n")
            case "/" where next == "*":
                i += 2
                while i + 1 < characters.count, !(characters[i] == "*" && characters[i + 1] == "/") { i += 1 }
                i += 1
                current.append(" ")
            case ";":
                flush()
            default:
                current.append(c)
            }
            i += 1
        }
        flush()
        return statements
    }
}

/// A script that cannot be read as SQL: a placeholder without a spelling, or one left open.
package struct SQLScriptError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
