/// Reads the comma-separated path lists of `$select` and `$expand`: `A, B/C, D/*`.
struct PathListParser {
    package struct Item {
        var segments: [String]
        var isWildcard: Bool
        /// 1-based column of the item's first character.
        var column: Int
    }

    private let scalars: [Unicode.Scalar]
    private let option: String
    private let allowsWildcard: Bool
    private var index = 0

    static func parse(_ text: String, option: String, allowsWildcard: Bool) throws(ODataError) -> [Item] {
        var parser = PathListParser(scalars: Array(text.unicodeScalars), option: option, allowsWildcard: allowsWildcard)
        return try parser.items()
    }

    private init(scalars: [Unicode.Scalar], option: String, allowsWildcard: Bool) {
        self.scalars = scalars
        self.option = option
        self.allowsWildcard = allowsWildcard
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" { index += 1 }
    }

    private mutating func items() throws(ODataError) -> [Item] {
        var items: [Item] = []
        while true {
            skipSpaces()
            items.append(try item())
            skipSpaces()
            guard let c = current else { return items }
            guard c == "," else {
                throw QuerySyntaxError.make(option, "expected ',' between paths, found \(QuerySyntaxError.quoted(String(c)))",
                                            column: index + 1)
            }
            index += 1
        }
    }

    private mutating func item() throws(ODataError) -> Item {
        let column = index + 1
        var segments: [String] = []
        while true {
            if current == "*" {
                guard allowsWildcard else {
                    throw QuerySyntaxError.make(option, "'*' is not allowed", column: index + 1,
                                                hint: "name each navigation property to expand")
                }
                index += 1
                if let c = current, c != ",", c != " ", c != "\t" {
                    throw QuerySyntaxError.make(option, "'*' must end the path, found \(QuerySyntaxError.quoted(String(c)))",
                                                column: index + 1)
                }
                return Item(segments: segments, isWildcard: true, column: column)
            }
            segments.append(try name(after: segments.last))
            guard current == "/" else { return Item(segments: segments, isWildcard: false, column: column) }
            index += 1
        }
    }

    private mutating func name(after previous: String?) throws(ODataError) -> String {
        let start = index
        if let c = current, QueryLexer.isIdentifierStart(c) {
            index += 1
            while let c = current, QueryLexer.isIdentifierPart(c) { index += 1 }
            return QueryLexer.string(scalars[start..<index])
        }
        let what = previous.map { "expected a property name after '\($0)/'" } ?? "expected a property name"
        let found = current.map { ", found \(QuerySyntaxError.quoted(String($0)))" } ?? ""
        throw QuerySyntaxError.make(option, what + found, column: start + 1)
    }
}
