/// One token of a `$filter` or `$orderby` expression, with the 1-based column where it starts in
/// the option's decoded text.
struct QueryToken: Sendable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case literal(ODataValue)
        case openParen, closeParen, comma, slash, minus, dot
        /// V4 only: the colon after a lambda's variable, `any(d:d/Price gt 5)`.
        case colon
        case end
    }

    var kind: Kind
    var column: Int
    /// The source text, for error messages.
    var text: String
}

/// Splits an expression into tokens. Literals are parsed here by ``ODataLiteral`` so that `$filter`
/// accepts exactly the literal forms keys do; under V4 the literal forms are V4's
/// (`QueryLexer+V4.swift`): no prefixes or number suffixes, `duration'…'` and `binary'…'`.
///
/// The lexer works on Unicode scalars, not Characters: a combining mark after a quote must not merge
/// with it and hide the end of a string, and columns then count what people see in most editors.
struct QueryLexer {
    let scalars: [Unicode.Scalar]
    let option: String
    let version: ODataVersion
    var index = 0

    /// The keywords that are literals wherever they appear; V2 reserves them.
    private static let keywordLiterals: Set<String> = [
        "null", "true", "false", "NaN", "NaNd", "NaND", "NaNf", "NaNF", "INF", "INFd", "INFD", "INFf", "INFF",
    ]

    static func tokenize(_ text: String, option: String, version: ODataVersion = .v2) throws(ODataError) -> [QueryToken] {
        var lexer = QueryLexer(scalars: Array(text.unicodeScalars), option: option, version: version)
        var tokens: [QueryToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private init(scalars: [Unicode.Scalar], option: String, version: ODataVersion) {
        self.scalars = scalars
        self.option = option
        self.version = version
    }

    func scalar(at i: Int) -> Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

    func text(_ range: Range<Int>) -> String { Self.string(scalars[range]) }

    /// The scalars as a String, written as UTF-8 in one pass. `String.UnicodeScalarView.append(contentsOf:)`
    /// walks a generic iterator per scalar, and was a third of the instructions of a query string's parse.
    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(unsafeUninitializedCapacity: scalars.count * 4) { buffer in
            var count = 0
            for scalar in scalars {
                if scalar.isASCII {
                    buffer[count] = UInt8(truncatingIfNeeded: scalar.value)
                    count += 1
                } else if let units = UTF8.encode(scalar) {
                    for unit in units {
                        buffer[count] = unit
                        count += 1
                    }
                }
            }
            return count
        }
    }

    private mutating func next() throws(ODataError) -> QueryToken {
        while let c = scalar(at: index), c == " " || c == "\t" || c == "\r" || c == "\n" { index += 1 }
        let start = index
        guard let c = scalar(at: index) else { return QueryToken(kind: .end, column: start + 1, text: "") }
        let single: QueryToken.Kind? = switch c {
        case "(": .openParen
        case ")": .closeParen
        case ",": .comma
        case "/": .slash
        case ".": .dot
        case ":" where version.isV4: .colon
        default: nil
        }
        if let single {
            index += 1
            return QueryToken(kind: single, column: start + 1, text: String(c))
        }
        if c == "'" {
            let end = try quotedEnd(from: start)
            index = end
            return QueryToken(kind: .literal(.string(unquote(start..<end))), column: start + 1, text: text(start..<end))
        }
        if version.isV4, let token = try v4Literal(from: start) {
            return token
        }
        // V4 allows a leading plus sign on numbers (`%2B42`).
        let signed = c == "-" || (version.isV4 && c == "+")
        if Self.isDigit(c) || (signed && scalar(at: index + 1).map(Self.isDigit) == true) || isNegativeInfinity(at: index) {
            return try number(from: start)
        }
        if c == "-" {
            index += 1
            return QueryToken(kind: .minus, column: start + 1, text: "-")
        }
        if Self.isIdentifierStart(c) || (version.isV4 && c == "$" && scalar(at: index + 1).map(Self.isIdentifierStart) == true) {
            return try identifierOrPrefixedLiteral(from: start)
        }
        throw QuerySyntaxError.make(option, "unexpected character \(QuerySyntaxError.quoted(String(c)))", column: start + 1)
    }

    /// `-INF`, `-INFd`, `-INFf` as one literal, but not `-INFO` (the negation of a property).
    private func isNegativeInfinity(at i: Int) -> Bool {
        guard scalar(at: i) == "-", scalar(at: i + 1) == "I", scalar(at: i + 2) == "N", scalar(at: i + 3) == "F" else {
            return false
        }
        var end = i + 4
        if let s = scalar(at: end), "dDfF".unicodeScalars.contains(s) { end += 1 }
        return scalar(at: end).map(Self.isIdentifierPart) != true
    }

    private mutating func number(from start: Int) throws(ODataError) -> QueryToken {
        var i = start + 1
        var literal = String(scalars[start])
        while let c = scalar(at: i) {
            let afterExponent = literal.last == "E" || literal.last == "e"
            if c.isASCII && (Self.isIdentifierPart(c) || c == ".") {
                literal.unicodeScalars.append(c)
            } else if afterExponent && (c == "+" || c == "-") && scalar(at: i + 1).map(Self.isDigit) == true {
                literal.unicodeScalars.append(c)
            } else if afterExponent && c == " " && scalar(at: i + 1).map(Self.isDigit) == true {
                // `1.5E+10` typed into a URL arrives as `1.5E 10` because query strings decode `+` as a
                // space; a digit run ending in `E` has no other reading, so take the space as the `+`.
                literal.unicodeScalars.append("+")
            } else {
                break
            }
            i += 1
        }
        index = i
        if version.isV4 { try refuseSuffix(literal, column: start + 1) }
        do {
            let value = try ODataLiteral.parse(literal)
            return QueryToken(kind: .literal(value), column: start + 1, text: text(start..<i))
        } catch {
            throw QuerySyntaxError.literal(option, error, column: start + 1)
        }
    }

    private mutating func identifierOrPrefixedLiteral(from start: Int) throws(ODataError) -> QueryToken {
        var i = start + 1
        while let c = scalar(at: i), Self.isIdentifierPart(c) { i += 1 }
        let name = text(start..<i)
        if scalar(at: i) == "'" {
            let end = try quotedEnd(from: i)
            index = end
            let source = text(start..<end)
            if version.isV4 {
                return try v4PrefixedLiteral(name, body: unquote(i..<end), source: source, column: start + 1)
            }
            do {
                return QueryToken(kind: .literal(try ODataLiteral.parse(source)), column: start + 1, text: source)
            } catch {
                throw QuerySyntaxError.literal(option, error, column: start + 1)
            }
        }
        index = i
        // V4's grammar spells true and false in any case.
        let keyword = version.isV4 && (name.lowercased() == "true" || name.lowercased() == "false") ? name.lowercased() : name
        if (version.isV4 ? Self.v4KeywordLiterals : Self.keywordLiterals).contains(keyword), let value = try? ODataLiteral.parse(keyword) {
            return QueryToken(kind: .literal(value), column: start + 1, text: name)
        }
        return QueryToken(kind: .identifier(name), column: start + 1, text: name)
    }

    /// The index just past the quote that closes the string opening at `open`; `''` is an escaped quote.
    func quotedEnd(from open: Int) throws(ODataError) -> Int {
        var i = open + 1
        while let c = scalar(at: i) {
            if c == "'" {
                if scalar(at: i + 1) == "'" { i += 2; continue }
                return i + 1
            }
            i += 1
        }
        throw QuerySyntaxError.make(option, "the string that starts here is not closed with a quote", column: open + 1,
                                    hint: "write a quote inside a string twice, as in 'O''Brien'")
    }

    func unquote(_ range: Range<Int>) -> String {
        let body = scalars[(range.lowerBound + 1)..<(range.upperBound - 1)]
        guard body.contains("'") else { return Self.string(body) }
        var view = String.UnicodeScalarView()
        var i = body.startIndex
        while i < body.endIndex {
            view.append(scalars[i])
            i += scalars[i] == "'" ? 2 : 1
        }
        return String(view)
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    // ASCII first: the Unicode property tables cost a lookup per scalar, and names are almost always ASCII.
    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        if c.isASCII { return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }
        return c.properties.isAlphabetic
    }

    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        if c.isASCII { return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || isDigit(c) }
        return c.properties.isAlphabetic || c.properties.numericType != nil
    }
}
