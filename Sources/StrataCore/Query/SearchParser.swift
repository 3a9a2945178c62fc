/// Reads V4's `$search` (OData ABNF `searchExpr`) from the option's percent-decoded value.
///
/// `AND`, `OR` and `NOT` are operators only where an operator can stand — between two terms, or
/// (`NOT`) before one; elsewhere they are words: `$search=NOT` looks for "NOT", `AND OR NOT` for
/// "AND" or "NOT". `NOT` binds tightest, then `AND` (also implicit: `blue green`), then `OR`. A value
/// in single quotes is OData 4.01's incomplete expression (what a search box sends while the user
/// types): its text is one phrase.
struct SearchParser {
    private enum Token: Equatable {
        case open, close, end
        case word(String)
        case phrase(String)
    }

    private let limits: QueryLimits
    private var tokens: [(token: Token, column: Int)] = []
    private var index = 0
    private var terms = 0

    static func parse(_ value: String, limits: QueryLimits) throws(ODataError) -> SearchExpression {
        if value.count >= 2, value.first == "'", value.last == "'" {
            let inner = value.dropFirst().dropLast()
            return .term(String(inner.replacing("''", with: "'").filter { $0 != "\"" }))
        }
        var parser = SearchParser(limits: limits)
        try parser.tokenize(Array(value))
        guard parser.tokens.first?.token != .end else {
            throw .badRequest("$search is empty; give a word, a \"phrase\", or terms combined with AND, OR and NOT")
        }
        let expression = try parser.or(depth: 0)
        guard parser.current == .end else {
            throw SearchParser.unexpected(parser.tokens[parser.index], expected: "AND, OR or the end of $search")
        }
        return expression
    }

    private init(limits: QueryLimits) {
        self.limits = limits
    }

    /// Whether `text` reads back as one word, so that it needs no quotation marks.
    static func isPlainWord(_ text: String) -> Bool {
        !text.isEmpty && !["AND", "OR", "NOT"].contains(text) && text.first != "'"
            && !text.contains { $0 == " " || $0 == "\t" || $0 == "(" || $0 == ")" || $0 == "\"" }
    }

    // MARK: Tokens

    private mutating func tokenize(_ characters: [Character]) throws(ODataError) {
        var at = 0
        while at < characters.count {
            let c = characters[at]
            let column = at + 1
            switch c {
            case " ", "\t":
                at += 1
            case "(":
                tokens.append((.open, column))
                at += 1
            case ")":
                tokens.append((.close, column))
                at += 1
            case "\"":
                guard let closing = characters[(at + 1)...].firstIndex(of: "\"") else {
                    throw QuerySyntaxError.make("$search", "the phrase that starts here has no closing '\"'", column: column,
                                                hint: "end it with \" or, for a word, leave the quotation mark out")
                }
                let text = String(characters[(at + 1)..<closing])
                guard !text.isEmpty else {
                    throw QuerySyntaxError.make("$search", "the phrase \"\" is empty", column: column, hint: "put words between the quotation marks")
                }
                tokens.append((.phrase(text), column))
                at = closing + 1
                if at < characters.count, !" \t()".contains(characters[at]) {
                    throw QuerySyntaxError.make("$search", "a phrase must be followed by a space, ')' or the end", column: at + 1)
                }
            case "'":
                throw QuerySyntaxError.make("$search", "a word cannot start with '", column: column,
                                            hint: "write phrases in double quotes, \"like this\"")
            default:
                var end = at
                while end < characters.count, !" \t()\"".contains(characters[end]) { end += 1 }
                if end < characters.count, characters[end] == "\"" {
                    throw QuerySyntaxError.make("$search", "'\"' inside a word", column: end + 1,
                                                hint: "put a space before a \"phrase\"")
                }
                tokens.append((.word(String(characters[at..<end])), column))
                at = end
            }
        }
        tokens.append((.end, characters.count + 1))
    }

    private var current: Token { tokens[index].token }
    private var next: Token { index + 1 < tokens.count ? tokens[index + 1].token : .end }

    /// Whether a term can start at `token`: a word (operators' names included), a phrase or `(`.
    private static func startsTerm(_ token: Token) -> Bool {
        switch token {
        case .word, .phrase, .open: return true
        case .close, .end: return false
        }
    }

    // MARK: Grammar

    private mutating func or(depth: Int) throws(ODataError) -> SearchExpression {
        var expression = try and(depth: depth)
        while current == .word("OR"), Self.startsTerm(next) {
            index += 1
            expression = .or(expression, try and(depth: depth))
        }
        return expression
    }

    private mutating func and(depth: Int) throws(ODataError) -> SearchExpression {
        var expression = try unary(depth: depth)
        while true {
            if current == .word("AND"), Self.startsTerm(next) {
                index += 1
            } else if current == .word("OR"), Self.startsTerm(next) {
                return expression
            } else if !Self.startsTerm(current) {
                return expression
            }
            expression = .and(expression, try unary(depth: depth))
        }
    }

    private mutating func unary(depth: Int) throws(ODataError) -> SearchExpression {
        if current == .word("NOT"), Self.startsTerm(next) {
            guard depth < limits.maxFilterDepth else { throw Self.tooDeep(tokens[index].column, limits.maxFilterDepth) }
            index += 1
            return .not(try unary(depth: depth + 1))
        }
        let (token, column) = tokens[index]
        switch token {
        case .open:
            guard depth < limits.maxFilterDepth else { throw Self.tooDeep(column, limits.maxFilterDepth) }
            index += 1
            let inner = try or(depth: depth + 1)
            guard current == .close else { throw Self.unexpected(tokens[index], expected: "')' to close the '(' at column \(column)") }
            index += 1
            return inner
        case .word(let text), .phrase(let text):
            terms += 1
            guard terms <= limits.maxFilterNodes else { throw Self.tooManyTerms(column, limits.maxFilterNodes) }
            index += 1
            return .term(text)
        case .close, .end:
            throw Self.unexpected(tokens[index], expected: "a word, a \"phrase\" or '('")
        }
    }

    // MARK: Errors (out of line: the recursive functions above stay small on the stack)

    @inline(never)
    private static func unexpected(_ found: (token: Token, column: Int), expected: String) -> ODataError {
        let what: String
        switch found.token {
        case .open: what = "'('"
        case .close: what = "')'"
        case .end: what = "the end of $search"
        case .word(let text): what = "the word '\(text.prefix(40))'"
        case .phrase(let text): what = "the phrase \"\(text.prefix(40))\""
        }
        return QuerySyntaxError.make("$search", "expected \(expected), found \(what)", column: found.column)
    }

    @inline(never)
    private static func tooDeep(_ column: Int, _ limit: Int) -> ODataError {
        QuerySyntaxError.make("$search", "parentheses and NOTs nest more than \(limit) deep", column: column, hint: "search with fewer levels")
    }

    @inline(never)
    private static func tooManyTerms(_ column: Int, _ limit: Int) -> ODataError {
        QuerySyntaxError.make("$search", "more than \(limit) terms", column: column, hint: "search with fewer words")
    }
}
