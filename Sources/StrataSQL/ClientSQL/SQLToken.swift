import Foundation
import StrataCore

/// One lexical unit of client SQL.
struct SQLToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// An unquoted word: a keyword or a name. Keywords are recognised by ``SQLToken/upper``.
        case word(String)
        /// A `"quoted"` name, with doubled quotes already undone.
        case quotedIdentifier(String)
        /// A `'string'` literal, with doubled quotes already undone.
        case string(String)
        /// The digits of a number literal as written; converted by the parser, which knows about a leading minus.
        case number(String)
        /// A `:name` parameter, without the colon.
        case parameter(String)
        case symbol(SQLSymbol)
        case end
    }

    var kind: Kind
    var location: SQLSourceLocation
    /// The word in upper case for keyword comparison; empty for other kinds.
    var upper: String

    init(_ kind: Kind, at location: SQLSourceLocation) {
        self.kind = kind
        self.location = location
        if case .word(let text) = kind { upper = text.uppercased() } else { upper = "" }
    }

    /// Whether this is the unquoted keyword `keyword` (given in upper case).
    func isKeyword(_ keyword: String) -> Bool {
        if case .word = kind { return upper == keyword }
        return false
    }

    func isSymbol(_ symbol: SQLSymbol) -> Bool {
        if case .symbol(let s) = kind { return s == symbol }
        return false
    }

    var isEnd: Bool {
        if case .end = kind { return true }
        return false
    }

    /// How the token reads in a message: `FROM`, `'abc'`, `:name`, `;`, `end of query`.
    var display: String {
        switch kind {
        case .word(let text): return text
        case .quotedIdentifier(let text): return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        case .string(let text):
            let shown = text.count > 20 ? String(text.prefix(20)) + "…" : text
            return "'" + shown.replacingOccurrences(of: "'", with: "''") + "'"
        case .number(let text): return text.count > 24 ? String(text.prefix(24)) + "…" : text
        case .parameter(let name): return ":" + name
        case .symbol(let symbol): return symbol.rawValue
        case .end: return "end of query"
        }
    }
}

/// Punctuation and operators of the dialect.
enum SQLSymbol: String, Sendable, Hashable {
    case comma = ","
    case dot = "."
    case leftParen = "("
    case rightParen = ")"
    case semicolon = ";"
    case star = "*"
    case plus = "+"
    case minus = "-"
    case slash = "/"
    case percent = "%"
    case concat = "||"
    case equal = "="
    case notEqual = "<>"
    case bangEqual = "!="
    case less = "<"
    case lessEqual = "<="
    case greater = ">"
    case greaterEqual = ">="
}
