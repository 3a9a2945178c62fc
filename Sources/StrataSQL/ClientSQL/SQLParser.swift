import StrataCore

/// Parses client SQL into a ``SQLSelectStatement``, refusing everything outside the dialect with
/// a message that names the construct and its line and column.
///
/// The parser knows the grammar and the function allow-list; names are resolved by ``SQLChecker``.
public enum SQLParser {
    /// Parses one `SELECT` statement, optionally followed by one `;`.
    public static func parse(_ text: String, limits: SQLLimits = .default) throws(ODataError) -> SQLSelectStatement {
        var parser = SQLParserState(tokens: try SQLLexer.tokenize(text, limits: limits), limits: limits)
        return try parser.parseStatement()
    }
}

/// The cursor over the tokens, and the counters that enforce ``SQLLimits``.
struct SQLParserState {
    private(set) var tokens: [SQLToken]
    private(set) var index = 0
    let limits: SQLLimits
    private var nodeCount = 0
    private var depth = 0

    init(tokens: [SQLToken], limits: SQLLimits) {
        self.tokens = tokens
        self.limits = limits
    }

    // MARK: Statement

    mutating func parseStatement() throws(ODataError) -> SQLSelectStatement {
        let first = current
        guard first.isKeyword("SELECT") else {
            if first.isEnd { throw SQLRefusal.syntax("the query is empty", at: first.location, hint: "send one SELECT statement") }
            if first.isSymbol(.leftParen) {
                throw SQLRefusal.notAllowed("a parenthesized query is not allowed", at: first.location, hint: "send one SELECT without parentheses around it")
            }
            if let refusal = SQLKeywords.refusal(for: first) { throw refusal }
            if SQLKeywords.statements.contains(first.upper) { throw SQLKeywords.statementRefusal(first) }
            throw SQLRefusal.syntax("a query must start with SELECT, not \(first.display)", at: first.location)
        }
        advance()
        var statement = SQLSelectStatement(items: [])
        statement.distinct = acceptKeyword("DISTINCT")
        if !statement.distinct { _ = acceptKeyword("ALL") }
        statement.items = try parseSelectList()
        if acceptKeyword("FROM") {
            statement.from = try parseTableName()
            statement.joins = try parseJoins()
        }
        if acceptKeyword("WHERE") { statement.filter = try parseExpression() }
        if acceptKeyword("GROUP") {
            try expectKeyword("BY", after: "GROUP")
            statement.groupBy = try parseList { (p: inout SQLParserState) throws(ODataError) in try p.parseExpression() }
        }
        if acceptKeyword("HAVING") { statement.having = try parseExpression() }
        if acceptKeyword("ORDER") {
            try expectKeyword("BY", after: "ORDER")
            statement.orderBy = try parseList { (p: inout SQLParserState) throws(ODataError) in try p.parseOrderItem() }
        }
        if acceptKeyword("LIMIT") {
            statement.limit = try parseLimitValue(clause: "LIMIT")
            if current.isSymbol(.comma) {
                throw SQLRefusal.notAllowed("LIMIT n, m is not allowed", at: current.location, hint: "write LIMIT n OFFSET m")
            }
            if acceptKeyword("OFFSET") { statement.offset = try parseLimitValue(clause: "OFFSET") }
        } else if current.isKeyword("OFFSET") {
            throw SQLRefusal.syntax("OFFSET without LIMIT", at: current.location, hint: "write LIMIT n OFFSET m")
        }
        try parseEnd()
        return statement
    }

    /// Accepts the end of the text, after at most one `;`.
    private mutating func parseEnd() throws(ODataError) {
        if acceptSymbol(.semicolon) {
            guard current.isEnd else {
                throw SQLRefusal.notAllowed("only one statement is allowed, but \(current.display) follows ';'", at: current.location,
                                            hint: "send one SELECT per request, with nothing after the ';'")
            }
            return
        }
        guard current.isEnd else { throw unexpected(expected: "end of query") }
    }

    private mutating func parseSelectList() throws(ODataError) -> [SQLSelectItem] {
        if current.isKeyword("FROM") || current.isEnd {
            throw SQLRefusal.syntax("the select list is empty", at: current.location, hint: "name the columns to return, or *")
        }
        return try parseList { (p: inout SQLParserState) throws(ODataError) in
            let item = try p.parseSelectItem()
            if case .word = p.current.kind, SQLKeywords.canBeAlias(p.current.upper) {
                throw SQLRefusal.syntax("unexpected \(p.current.display) after a select item", at: p.current.location,
                                        hint: "separate items with ',' and write aliases with AS")
            }
            return item
        }
    }

    private mutating func parseSelectItem() throws(ODataError) -> SQLSelectItem {
        try countNode(at: current.location)
        if current.isSymbol(.star) {
            let star = advance()
            return .allColumns(at: star.location)
        }
        if let name = identifier(current), peek(1).isSymbol(.dot), peek(2).isSymbol(.star) {
            advance(); advance(); advance()
            return .allColumnsOf(name)
        }
        let expression = try parseExpression()
        guard acceptKeyword("AS") else { return .expression(expression, alias: nil) }
        return .expression(expression, alias: try parseAlias(required: true))
    }

    // MARK: FROM and JOIN

    private mutating func parseTableName() throws(ODataError) -> SQLTableName {
        try countNode(at: current.location)
        if current.isSymbol(.leftParen) {
            throw SQLRefusal.notAllowed("subqueries in FROM are not allowed", at: current.location, hint: "name a catalog table")
        }
        guard let name = identifier(current) else { throw unexpected(expected: "a table name") }
        advance()
        if current.isSymbol(.dot) {
            let rest = peek(1).display
            throw SQLRefusal.notAllowed("the schema-qualified name \(name).\(rest) is not allowed", at: name.location,
                                        hint: "name tables without a schema; only the service's tables can be read")
        }
        if current.isSymbol(.leftParen) {
            throw SQLRefusal.notAllowed("table functions such as \(name)(…) are not allowed", at: name.location, hint: "name a catalog table")
        }
        if acceptKeyword("AS") { return SQLTableName(name: name, alias: try parseAlias(required: true)) }
        return SQLTableName(name: name, alias: try parseAlias(required: false))
    }

    private mutating func parseJoins() throws(ODataError) -> [SQLJoin] {
        var joins: [SQLJoin] = []
        while true {
            let kind: SQLJoin.Kind
            if current.isSymbol(.comma) {
                throw SQLRefusal.notAllowed("comma-separated tables in FROM are not allowed", at: current.location, hint: "write JOIN … ON")
            } else if acceptKeyword("JOIN") {
                kind = .inner
            } else if acceptKeyword("INNER") {
                try expectKeyword("JOIN", after: "INNER")
                kind = .inner
            } else if acceptKeyword("LEFT") {
                _ = acceptKeyword("OUTER")
                try expectKeyword("JOIN", after: "LEFT")
                kind = .left
            } else if ["RIGHT", "FULL", "CROSS", "NATURAL"].contains(current.upper), let refusal = SQLKeywords.refusal(for: current) {
                throw refusal
            } else {
                return joins
            }
            let table = try parseTableName()
            if current.isKeyword("USING"), let refusal = SQLKeywords.refusal(for: current) { throw refusal }
            guard acceptKeyword("ON") else {
                throw SQLRefusal.syntax("a JOIN needs ON and a condition, found \(current.display)", at: current.location)
            }
            joins.append(SQLJoin(kind: kind, table: table, condition: try parseExpression()))
        }
    }

    /// An alias after `AS` (required) or directly after a table name (optional).
    private mutating func parseAlias(required: Bool) throws(ODataError) -> SQLIdentifier? {
        switch current.kind {
        case .quotedIdentifier(let name):
            let token = advance()
            return SQLIdentifier(name, quoted: true, at: token.location)
        case .word(let name) where SQLKeywords.canBeAlias(current.upper):
            let token = advance()
            return SQLIdentifier(name, quoted: false, at: token.location)
        case .word where SQLKeywords.statements.contains(current.upper) && !SQLKeywords.reserved.contains(current.upper):
            throw SQLKeywords.statementRefusal(current)
        case .string:
            if required { throw SQLRefusal.syntax("an alias must be a name, not a string", at: current.location, hint: "write AS name or AS \"Name\"") }
            return nil
        default:
            if required { throw unexpected(expected: "a name after AS") }
            return nil
        }
    }

    // MARK: ORDER BY and LIMIT

    private mutating func parseOrderItem() throws(ODataError) -> SQLOrderItem {
        let expression = try parseExpression()
        var descending = false
        if acceptKeyword("DESC") { descending = true } else { _ = acceptKeyword("ASC") }
        var nulls: SQLOrderItem.Nulls?
        if acceptKeyword("NULLS") {
            if acceptKeyword("FIRST") { nulls = .first } else if acceptKeyword("LAST") { nulls = .last } else {
                throw unexpected(expected: "FIRST or LAST after NULLS")
            }
        }
        return SQLOrderItem(expression: expression, descending: descending, nulls: nulls)
    }

    private mutating func parseLimitValue(clause: String) throws(ODataError) -> SQLExpression {
        let token = current
        switch token.kind {
        case .number(let text):
            advance()
            let value = try numberValue(text, negative: false, at: token.location)
            guard value.integerValue != nil else {
                throw SQLRefusal.syntax("\(clause) needs a whole number, not \(text)", at: token.location)
            }
            return try node(.literal(value), at: token.location)
        case .parameter(let name):
            advance()
            return try node(.parameter(name), at: token.location)
        default:
            throw SQLRefusal.syntax("\(clause) takes an integer or a :parameter, not \(token.display)", at: token.location)
        }
    }

    // MARK: Cursor

    var current: SQLToken { tokens[index] }

    func peek(_ offset: Int) -> SQLToken { tokens[min(index + offset, tokens.count - 1)] }

    @discardableResult
    mutating func advance() -> SQLToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    mutating func acceptKeyword(_ keyword: String) -> Bool {
        guard current.isKeyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func acceptSymbol(_ symbol: SQLSymbol) -> Bool {
        guard current.isSymbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expectKeyword(_ keyword: String, after previous: String) throws(ODataError) {
        guard acceptKeyword(keyword) else { throw unexpected(expected: "\(keyword) after \(previous)") }
    }

    mutating func expectSymbol(_ symbol: SQLSymbol, _ what: String) throws(ODataError) {
        guard acceptSymbol(symbol) else { throw unexpected(expected: what) }
    }

    /// Parses `item, item, …`.
    mutating func parseList<T>(_ item: (inout SQLParserState) throws(ODataError) -> T) throws(ODataError) -> [T] {
        var items = [try item(&self)]
        while acceptSymbol(.comma) { items.append(try item(&self)) }
        return items
    }

    /// A token usable as a name: an unquoted word that is not reserved, or a quoted name.
    func identifier(_ token: SQLToken) -> SQLIdentifier? {
        switch token.kind {
        case .word(let name) where !SQLKeywords.reserved.contains(token.upper):
            return SQLIdentifier(name, quoted: false, at: token.location)
        case .quotedIdentifier(let name):
            return SQLIdentifier(name, quoted: true, at: token.location)
        default:
            return nil
        }
    }

    /// The refusal for the current token where `expected` should be: a specific one when the token
    /// is SQL the dialect leaves out, otherwise a syntax error saying what was expected.
    func unexpected(expected: String) -> ODataError {
        let token = current
        if let refusal = SQLKeywords.refusal(for: token) { return refusal }
        if SQLKeywords.statements.contains(token.upper), token.upper != "END", token.upper != "REPLACE" {
            return SQLKeywords.statementRefusal(token)
        }
        return SQLRefusal.syntax("unexpected \(token.display)", at: token.location, hint: "expected \(expected)")
    }

    // MARK: Limits

    /// Builds an expression node, counting it and checking the tree's height.
    mutating func node(_ kind: SQLExpression.Kind, at location: SQLSourceLocation) throws(ODataError) -> SQLExpression {
        try countNode(at: location)
        let expression = SQLExpression(kind, at: location)
        guard expression.height <= limits.maxDepth else { throw tooDeep(at: location) }
        return expression
    }

    mutating func countNode(at location: SQLSourceLocation) throws(ODataError) {
        nodeCount += 1
        guard nodeCount <= limits.maxNodes else {
            throw SQLRefusal.tooLarge("the query has more than \(limits.maxNodes) parts", at: location, hint: "send a smaller query")
        }
    }

    /// Called before each recursive descent, so deeply nested text is refused before the stack grows.
    mutating func enter(at location: SQLSourceLocation) throws(ODataError) {
        depth += 1
        guard depth <= limits.maxDepth else { throw tooDeep(at: location) }
    }

    mutating func leave() { depth -= 1 }

    private func tooDeep(at location: SQLSourceLocation) -> ODataError {
        SQLRefusal.tooLarge("expressions are nested more than \(limits.maxDepth) levels deep", at: location, hint: "simplify the expression")
    }
}
