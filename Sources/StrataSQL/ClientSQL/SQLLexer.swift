import StrataCore

/// Splits client SQL into tokens, refusing everything that is not part of the dialect's lexical
/// grammar rather than skipping it.
///
/// Comments are refused, not stripped: they are the usual way to hide the rest of an injected
/// statement, and a query that needs them is not one a client has to send. Outside string
/// literals and quoted names only printable ASCII is accepted, so Unicode look-alikes of quotes
/// and semicolons cannot make the text read differently to a person than to the parser.
/// Strings follow standard SQL: `''` is a quote, a backslash is an ordinary character.
struct SQLLexer {
    private let scalars: [Unicode.Scalar]
    private let limits: SQLLimits
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ text: String, limits: SQLLimits) {
        self.scalars = Array(text.unicodeScalars)
        self.limits = limits
    }

    /// Tokenizes the whole text; the last token is always `.end`.
    static func tokenize(_ text: String, limits: SQLLimits) throws(ODataError) -> [SQLToken] {
        let length = text.utf8.count
        guard length <= limits.maxLength else {
            throw SQLRefusal.tooLarge(
                "the query is \(length) bytes long, more than the limit of \(limits.maxLength)",
                at: SQLSourceLocation(line: 1, column: 1))
        }
        var lexer = SQLLexer(text, limits: limits)
        var tokens: [SQLToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.isEnd { return tokens }
        }
    }

    private var location: SQLSourceLocation { SQLSourceLocation(line: line, column: column) }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    /// Moves past one scalar, keeping line and column; `\r\n`, `\n` and a lone `\r` each end a line.
    private mutating func advance() {
        let scalar = scalars[index]
        index += 1
        if scalar == "\n" || (scalar == "\r" && peek() != "\n") {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    private mutating func next() throws(ODataError) -> SQLToken {
        while let c = peek(), c == " " || c == "\t" || c == "\n" || c == "\r" { advance() }
        let start = location
        guard let c = peek() else { return SQLToken(.end, at: start) }
        switch c {
        case "a"..."z", "A"..."Z", "_":
            return try word(at: start)
        case "0"..."9":
            return try number(at: start)
        case ".":
            if let d = peek(1), ("0"..."9").contains(d) { return try number(at: start) }
            advance()
            return SQLToken(.symbol(.dot), at: start)
        case "'":
            return SQLToken(.string(try quoted(by: "'", at: start)), at: start)
        case "\"":
            let name = try quoted(by: "\"", at: start)
            guard !name.isEmpty else { throw SQLRefusal.syntax("empty quoted name \"\"", at: start) }
            try checkNameLength(name, at: start)
            return SQLToken(.quotedIdentifier(name), at: start)
        case ":":
            return try parameter(at: start)
        default:
            return try symbol(c, at: start)
        }
    }

    private mutating func word(at start: SQLSourceLocation) throws(ODataError) -> SQLToken {
        var text = ""
        while let c = peek(), c.isASCIIWordCharacter {
            text.unicodeScalars.append(c)
            advance()
        }
        // A quote right after a keyword (`LIKE'J%'`) is just a string; after any other word it would
        // be a prefixed literal (E'…', X'…', DATE'…'), which the dialect does not have.
        if peek() == "'", !SQLKeywords.reserved.contains(text.uppercased()) {
            let upper = text.uppercased()
            let kind = upper == "E" ? "E'…' escape strings" : upper == "X" ? "X'…' blob literals" : "prefixed string literals (\(text)'…')"
            throw SQLRefusal.notAllowed("\(kind) are not allowed", at: start, hint: "write a standard string literal '…' with quotes doubled, or use a :parameter")
        }
        try checkNameLength(text, at: start)
        return SQLToken(.word(text), at: start)
    }

    /// Reads `digits[.digits][e[+|-]digits]` or `.digits…`; the value is converted by the parser.
    private mutating func number(at start: SQLSourceLocation) throws(ODataError) -> SQLToken {
        var text = ""
        func digits(_ lexer: inout SQLLexer, into text: inout String) {
            while let c = lexer.peek(), ("0"..."9").contains(c) {
                text.unicodeScalars.append(c)
                lexer.advance()
            }
        }
        digits(&self, into: &text)
        if peek() == "." {
            text.append(".")
            advance()
            digits(&self, into: &text)
        }
        if let e = peek(), e == "e" || e == "E" {
            text.append("e")
            advance()
            if let sign = peek(), sign == "+" || sign == "-" {
                text.unicodeScalars.append(sign)
                advance()
            }
            let before = text.count
            digits(&self, into: &text)
            guard text.count > before else { throw SQLRefusal.syntax("malformed number \(text)", at: start, hint: "an exponent needs digits, as in 1.5e3") }
        }
        if let c = peek(), c.isASCIIWordCharacter || c == "." {
            throw SQLRefusal.syntax("malformed number starting \(text)\(Character(c))", at: start,
                                    hint: "numbers are written as 42, 1.5 or 1.5e3; hexadecimal and suffixes are not part of the dialect")
        }
        return SQLToken(.number(text), at: start)
    }

    /// Reads a `'string'` or `"name"`: the closing quote ends it, a doubled quote stands for one.
    private mutating func quoted(by quote: Unicode.Scalar, at start: SQLSourceLocation) throws(ODataError) -> String {
        advance()
        var text = ""
        while true {
            guard let c = peek() else {
                let what = quote == "'" ? "unterminated string" : "unterminated quoted name"
                throw SQLRefusal.syntax("\(what) starting", at: start,
                                        hint: "close it with \(quote); write \(quote)\(quote) for a \(quote) inside")
            }
            if c == quote {
                let closing = location
                advance()
                if quote == "'", text.hasSuffix("\\"), let next = peek(), next.isASCIIWordCharacter {
                    throw SQLRefusal.syntax("a backslash does not escape a quote in SQL strings; this string ends here", at: closing,
                                            hint: "write '' for a quote inside a string, as in 'it''s'")
                }
                guard peek() == quote else { return text }
                advance()
                text.unicodeScalars.append(quote)
                continue
            }
            if c.value == 0 || (c.value < 0x20 && c != "\t" && c != "\n" && c != "\r") || c.value == 0x7F {
                throw SQLRefusal.notAllowed("control character \(c.codePoint) is not allowed", at: location,
                                            hint: "send text without NUL or other control characters; bind binary data as a parameter")
            }
            text.unicodeScalars.append(c)
            advance()
        }
    }

    private mutating func parameter(at start: SQLSourceLocation) throws(ODataError) -> SQLToken {
        advance()
        if peek() == ":" {
            throw SQLRefusal.notAllowed("'::' casts are not allowed", at: start, hint: "write CAST(expression AS type)")
        }
        guard let first = peek(), first.isASCIIWordCharacter, !("0"..."9").contains(first) else {
            throw SQLRefusal.syntax("':' must start a parameter name", at: start, hint: "write parameters as :name, with a letter after the colon")
        }
        var name = ""
        while let c = peek(), c.isASCIIWordCharacter {
            name.unicodeScalars.append(c)
            advance()
        }
        try checkNameLength(name, at: start)
        return SQLToken(.parameter(name), at: start)
    }

    private mutating func symbol(_ c: Unicode.Scalar, at start: SQLSourceLocation) throws(ODataError) -> SQLToken {
        let nextScalar = peek(1)
        func take(_ symbol: SQLSymbol, _ width: Int, _ lexer: inout SQLLexer) -> SQLToken {
            for _ in 0..<width { lexer.advance() }
            return SQLToken(.symbol(symbol), at: start)
        }
        switch c {
        case ",": return take(.comma, 1, &self)
        case "(": return take(.leftParen, 1, &self)
        case ")": return take(.rightParen, 1, &self)
        case ";": return take(.semicolon, 1, &self)
        case "+": return take(.plus, 1, &self)
        case "%": return take(.percent, 1, &self)
        case "=": return take(.equal, 1, &self)
        case "-":
            if nextScalar == "-" { throw Self.comment("'--'", at: start) }
            return take(.minus, 1, &self)
        case "/":
            if nextScalar == "*" { throw Self.comment("'/*'", at: start) }
            return take(.slash, 1, &self)
        case "*":
            if nextScalar == "/" { throw Self.comment("'*/'", at: start) }
            return take(.star, 1, &self)
        case "|":
            if nextScalar == "|" { return take(.concat, 2, &self) }
            throw SQLRefusal.notAllowed("'|' is not allowed", at: start, hint: "bitwise operators are not part of the dialect; '||' concatenates strings")
        case "<":
            if nextScalar == "=" { return take(.lessEqual, 2, &self) }
            if nextScalar == ">" { return take(.notEqual, 2, &self) }
            return take(.less, 1, &self)
        case ">":
            if nextScalar == "=" { return take(.greaterEqual, 2, &self) }
            return take(.greater, 1, &self)
        case "!":
            if nextScalar == "=" { return take(.bangEqual, 2, &self) }
            throw SQLRefusal.notAllowed("'!' is not allowed", at: start, hint: "write NOT, or != for inequality")
        default:
            throw Self.refuseCharacter(c, next: nextScalar, at: start)
        }
    }

    private static func comment(_ marker: String, at location: SQLSourceLocation) -> ODataError {
        SQLRefusal.notAllowed("comments are not allowed: found \(marker)", at: location,
                              hint: "remove the comment; Strata refuses comments instead of stripping them")
    }

    /// The message for a character that starts no token, naming what the client probably meant.
    private static func refuseCharacter(_ c: Unicode.Scalar, next: Unicode.Scalar?, at location: SQLSourceLocation) -> ODataError {
        switch c {
        case "?":
            return SQLRefusal.notAllowed("'?' placeholders are not allowed", at: location, hint: "use named parameters such as :name")
        case "$":
            if let next, ("0"..."9").contains(next) {
                return SQLRefusal.notAllowed("positional parameters ($1) are not allowed", at: location, hint: "use named parameters such as :name")
            }
            return SQLRefusal.notAllowed("'$' (dollar-quoted strings) is not allowed", at: location, hint: "write a standard string literal '…' with quotes doubled")
        case "`", "[", "]":
            return SQLRefusal.notAllowed("'\(c)' is not allowed", at: location, hint: "quote names with double quotes, as in \"Person\"")
        case "#":
            return SQLRefusal.notAllowed("'#' is not allowed", at: location, hint: "comments and '#' operators are not part of the dialect")
        case "\\":
            return SQLRefusal.notAllowed("a backslash is not allowed outside a string", at: location)
        default:
            break
        }
        if c.value == 0 {
            return SQLRefusal.notAllowed("a NUL character is not allowed", at: location, hint: "send the query as plain text")
        }
        if c.value < 0x20 || c.value == 0x7F {
            return SQLRefusal.notAllowed("control character \(c.codePoint) is not allowed", at: location)
        }
        if c.isASCII {
            return SQLRefusal.notAllowed("'\(c)' is not allowed", at: location, hint: "it is not an operator of the dialect")
        }
        if quoteLookAlikes.contains(c.value) {
            return SQLRefusal.notAllowed("the character \(c) (\(c.codePoint)) is not allowed", at: location,
                                         hint: "only the ASCII quotes ' (strings) and \" (names) are recognised")
        }
        return SQLRefusal.notAllowed("the character \(c.codePoint) is not allowed outside a string or quoted name", at: location,
                                     hint: "names that are not plain ASCII must be quoted, as in \"Straße\"")
    }

    /// Characters that look like quotes or a semicolon but are not; named in the refusal because
    /// people paste them from word processors and attackers use them to confuse reviewers.
    private static let quoteLookAlikes: Set<UInt32> = [
        0x00AB, 0x00B4, 0x00BB, 0x02B9, 0x02BB, 0x02BC, 0x02BD, 0x02EE, 0x037E, 0x2018, 0x2019, 0x201A,
        0x201B, 0x201C, 0x201D, 0x201E, 0x201F, 0x2032, 0x2033, 0x2035, 0x2036, 0x2039, 0x203A, 0x275B,
        0x275C, 0x275D, 0x275E, 0xFF02, 0xFF07, 0xFF1B,
    ]

    private func checkNameLength(_ name: String, at location: SQLSourceLocation) throws(ODataError) {
        let count = name.unicodeScalars.count
        guard count <= limits.maxNameLength else {
            throw SQLRefusal.tooLarge("a name of \(count) characters is longer than the limit of \(limits.maxNameLength)", at: location)
        }
    }
}

extension Unicode.Scalar {
    /// ASCII letters, digits and underscore: the characters of unquoted names.
    var isASCIIWordCharacter: Bool {
        switch self {
        case "a"..."z", "A"..."Z", "0"..."9", "_": return true
        default: return false
        }
    }

    /// `U+2019`, for messages.
    var codePoint: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
