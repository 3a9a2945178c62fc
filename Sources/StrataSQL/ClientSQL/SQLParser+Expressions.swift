import Foundation
import StrataCore

/// Expressions, by precedence from loosest to tightest: `OR`, `AND`, `NOT`, comparisons
/// (`= <> < … IS IN BETWEEN LIKE`, not chainable), `||`, `+ -`, `* / %`, unary `-`, primaries.
/// `||` binds looser than arithmetic, as in PostgreSQL; the emitter parenthesizes every operation,
/// so both databases evaluate exactly the tree parsed here.
extension SQLParserState {
    mutating func parseExpression() throws(ODataError) -> SQLExpression {
        try enter(at: current.location)
        defer { leave() }
        return try parseOr()
    }

    private mutating func parseOr() throws(ODataError) -> SQLExpression {
        let start = current.location
        var terms = [try parseAnd()]
        while acceptKeyword("OR") { terms.append(try parseAnd()) }
        return terms.count == 1 ? terms[0] : try node(.or(terms), at: start)
    }

    private mutating func parseAnd() throws(ODataError) -> SQLExpression {
        let start = current.location
        var terms = [try parseNot()]
        while acceptKeyword("AND") { terms.append(try parseNot()) }
        return terms.count == 1 ? terms[0] : try node(.and(terms), at: start)
    }

    private mutating func parseNot() throws(ODataError) -> SQLExpression {
        guard current.isKeyword("NOT") else { return try parseComparison() }
        let not = advance()
        try enter(at: not.location)
        defer { leave() }
        return try node(.not(try parseNot()), at: not.location)
    }

    private mutating func parseComparison() throws(ODataError) -> SQLExpression {
        let lhs = try parseConcat()
        guard let result = try parseComparisonTail(lhs) else { return lhs }
        if Self.comparisonOperator(current) != nil || ["IS", "IN", "BETWEEN", "LIKE"].contains(current.upper)
            || (current.isKeyword("NOT") && ["IN", "BETWEEN", "LIKE"].contains(peek(1).upper)) {
            throw SQLRefusal.syntax("comparisons cannot be chained", at: current.location, hint: "combine comparisons with AND")
        }
        return result
    }

    /// The comparison that follows `lhs`, or nil when none does.
    private mutating func parseComparisonTail(_ lhs: SQLExpression) throws(ODataError) -> SQLExpression? {
        let at = lhs.location
        if let op = Self.comparisonOperator(current) {
            advance()
            return try node(.comparison(op, lhs, try parseConcat()), at: at)
        }
        if acceptKeyword("IS") {
            let negated = acceptKeyword("NOT")
            guard acceptKeyword("NULL") else {
                if ["TRUE", "FALSE", "DISTINCT", "UNKNOWN"].contains(current.upper) {
                    throw SQLRefusal.notAllowed("IS \(negated ? "NOT " : "")\(current.upper) is not allowed", at: current.location,
                                                hint: "write IS NULL, IS NOT NULL, = TRUE or = FALSE")
                }
                throw unexpected(expected: "NULL after IS")
            }
            return try node(.isNull(lhs, negated: negated), at: at)
        }
        var negated = false
        if current.isKeyword("NOT"), ["IN", "BETWEEN", "LIKE"].contains(peek(1).upper) {
            advance()
            negated = true
        }
        if acceptKeyword("IN") {
            guard current.isSymbol(.leftParen) else { throw unexpected(expected: "'(' and a list of values after IN") }
            advance()
            if ["SELECT", "WITH", "VALUES"].contains(current.upper) {
                throw SQLRefusal.notAllowed("subqueries are not allowed", at: current.location, hint: "list the values, or use JOIN … ON")
            }
            if current.isSymbol(.rightParen) { throw SQLRefusal.syntax("an IN list cannot be empty", at: current.location) }
            let list = try parseList { (p: inout SQLParserState) throws(ODataError) in try p.parseExpression() }
            try expectSymbol(.rightParen, "')' to close the IN list")
            return try node(.inList(lhs, list, negated: negated), at: at)
        }
        if acceptKeyword("BETWEEN") {
            let low = try parseConcat()
            try expectKeyword("AND", after: "BETWEEN …")
            let high = try parseConcat()
            return try node(.between(lhs, low: low, high: high, negated: negated), at: at)
        }
        if acceptKeyword("LIKE") {
            let pattern = try parseConcat()
            let escape = acceptKeyword("ESCAPE") ? try parseConcat() : nil
            return try node(.like(lhs, pattern: pattern, escape: escape, negated: negated), at: at)
        }
        if ["ILIKE", "GLOB", "REGEXP", "SIMILAR", "MATCH", "COLLATE"].contains(current.upper), let refusal = SQLKeywords.refusal(for: current) {
            throw refusal
        }
        return nil
    }

    private static func comparisonOperator(_ token: SQLToken) -> SQLComparisonOperator? {
        guard case .symbol(let symbol) = token.kind else { return nil }
        switch symbol {
        case .equal: return .equal
        case .notEqual, .bangEqual: return .notEqual
        case .less: return .less
        case .lessEqual: return .lessOrEqual
        case .greater: return .greater
        case .greaterEqual: return .greaterOrEqual
        default: return nil
        }
    }

    private mutating func parseConcat() throws(ODataError) -> SQLExpression {
        let start = current.location
        var terms = [try parseAdditive()]
        while acceptSymbol(.concat) { terms.append(try parseAdditive()) }
        return terms.count == 1 ? terms[0] : try node(.concat(terms), at: start)
    }

    private mutating func parseAdditive() throws(ODataError) -> SQLExpression {
        var lhs = try parseMultiplicative()
        while true {
            let op: SQLArithmeticOperator
            if acceptSymbol(.plus) { op = .add } else if acceptSymbol(.minus) { op = .subtract } else { return lhs }
            lhs = try node(.arithmetic(op, lhs, try parseMultiplicative()), at: lhs.location)
        }
    }

    private mutating func parseMultiplicative() throws(ODataError) -> SQLExpression {
        var lhs = try parseUnary()
        while true {
            let op: SQLArithmeticOperator
            if acceptSymbol(.star) { op = .multiply } else if acceptSymbol(.slash) { op = .divide } else if acceptSymbol(.percent) {
                op = .remainder
            } else { return lhs }
            lhs = try node(.arithmetic(op, lhs, try parseUnary()), at: lhs.location)
        }
    }

    private mutating func parseUnary() throws(ODataError) -> SQLExpression {
        guard current.isSymbol(.minus) else { return try parsePrimary() }
        let minus = advance()
        // A minus before a number is part of the literal, so -9223372036854775808 is an Int64.
        if case .number(let text) = current.kind {
            advance()
            return try node(.literal(try numberValue(text, negative: true, at: minus.location)), at: minus.location)
        }
        try enter(at: minus.location)
        defer { leave() }
        return try node(.negate(try parseUnary()), at: minus.location)
    }

    private mutating func parsePrimary() throws(ODataError) -> SQLExpression {
        let token = current
        switch token.kind {
        case .number(let text):
            advance()
            return try node(.literal(try numberValue(text, negative: false, at: token.location)), at: token.location)
        case .string(let text):
            advance()
            return try node(.literal(.string(text)), at: token.location)
        case .parameter(let name):
            advance()
            return try node(.parameter(name), at: token.location)
        case .symbol(.leftParen):
            advance()
            if ["SELECT", "WITH", "VALUES", "TABLE"].contains(current.upper) {
                throw SQLRefusal.notAllowed("subqueries are not allowed", at: current.location, hint: "use JOIN … ON")
            }
            let inner = try parseExpression()
            try expectSymbol(.rightParen, "')' to close the '(' at \(token.location)")
            return inner
        case .symbol(.star):
            throw SQLRefusal.notAllowed("'*' is only allowed as SELECT *, SELECT t.* or COUNT(*)", at: token.location)
        case .quotedIdentifier(let name):
            return try parseName(SQLIdentifier(name, quoted: true, at: token.location))
        case .word(let text):
            return try parseWord(text, token)
        default:
            throw unexpected(expected: "an expression")
        }
    }

    private mutating func parseWord(_ text: String, _ token: SQLToken) throws(ODataError) -> SQLExpression {
        switch token.upper {
        case "TRUE", "FALSE", "NULL":
            advance()
            let value: ODataValue = token.upper == "NULL" ? .null : .boolean(token.upper == "TRUE")
            return try node(.literal(value), at: token.location)
        case "CASE":
            return try parseCase()
        case "CAST":
            return try parseCast()
        default:
            break
        }
        let isReserved = SQLKeywords.reserved.contains(token.upper)
        if peek(1).isSymbol(.leftParen), !isReserved || token.upper == "LEFT" || token.upper == "RIGHT" {
            return try parseFunctionCall(name: text, token)
        }
        if isReserved {
            throw SQLKeywords.refusal(for: token)
                ?? SQLRefusal.syntax("unexpected keyword \(token.upper)", at: token.location,
                                     hint: "expected an expression; quote names that are keywords, as in \"order\"")
        }
        if case .string = peek(1).kind {
            throw SQLRefusal.notAllowed("typed literals such as \(text) '…' are not allowed", at: token.location,
                                        hint: "compare with a plain string such as '2009-11-01', or pass a :parameter")
        }
        return try parseName(SQLIdentifier(text, quoted: false, at: token.location))
    }

    /// `name` or `qualifier.name`, with the first name already read from the current token.
    private mutating func parseName(_ first: SQLIdentifier) throws(ODataError) -> SQLExpression {
        advance()
        if current.isSymbol(.leftParen) {
            throw SQLRefusal.notAllowed("a quoted function name \(first) is not allowed", at: first.location, hint: "write function names unquoted")
        }
        guard acceptSymbol(.dot) else {
            return try node(.column(SQLColumnName(qualifier: nil, name: first)), at: first.location)
        }
        if current.isSymbol(.star) {
            throw SQLRefusal.notAllowed("\(first).* is only allowed in the select list", at: first.location)
        }
        guard let second = identifier(current) else { throw unexpected(expected: "a column name after '\(first).'") }
        advance()
        if current.isSymbol(.dot) {
            throw SQLRefusal.notAllowed("names with more than two parts (schema.table.column) are not allowed", at: first.location,
                                        hint: "write table.column or alias.column")
        }
        if current.isSymbol(.leftParen) {
            throw SQLRefusal.notAllowed("the qualified function name \(first).\(second) is not allowed", at: first.location,
                                        hint: "call allowed functions by their plain name")
        }
        return try node(.column(SQLColumnName(qualifier: first, name: second)), at: first.location)
    }

    private mutating func parseFunctionCall(name: String, _ token: SQLToken) throws(ODataError) -> SQLExpression {
        guard let function = SQLFunction(name: name) else {
            throw SQLRefusal.notAllowed("the function \(name) is not allowed", at: token.location,
                                        hint: "allowed functions are \(SQLFunction.allowedNames)")
        }
        advance()
        advance()
        if current.isSymbol(.star) {
            guard function == .count else {
                throw SQLRefusal.notAllowed("\(function.rawValue)(*) is not allowed", at: current.location, hint: "only COUNT takes *")
            }
            advance()
            try expectSymbol(.rightParen, "')' after COUNT(*")
            try refuseAggregateSuffix()
            return try node(.countAll, at: token.location)
        }
        let distinct = acceptKeyword("DISTINCT")
        if distinct && !function.isAggregate {
            throw SQLRefusal.notAllowed("DISTINCT is only allowed in aggregate functions, not in \(function.rawValue)", at: token.location)
        }
        var arguments: [SQLExpression] = []
        if !current.isSymbol(.rightParen) {
            arguments = try parseList { (p: inout SQLParserState) throws(ODataError) in try p.parseExpression() }
        }
        try expectSymbol(.rightParen, "')' to close the arguments of \(function.rawValue)")
        guard function.arity.contains(arguments.count) else {
            let range = function.arity
            let expected = range.count == 1 ? "\(range.lowerBound)" : range.upperBound > 3 ? "at least \(range.lowerBound)" : "\(range.lowerBound) or \(range.upperBound)"
            throw SQLRefusal.syntax("\(function.rawValue) takes \(expected) argument\(range.upperBound == 1 ? "" : "s"), not \(arguments.count)",
                                    at: token.location)
        }
        try refuseAggregateSuffix()
        return try node(.function(function, arguments, distinct: distinct), at: token.location)
    }

    /// `OVER (…)`, `FILTER (…)` and `WITHIN GROUP` turn calls into window or filtered aggregates.
    private func refuseAggregateSuffix() throws(ODataError) {
        if ["OVER", "FILTER", "WITHIN"].contains(current.upper), let refusal = SQLKeywords.refusal(for: current) { throw refusal }
    }

    private mutating func parseCase() throws(ODataError) -> SQLExpression {
        let start = advance()
        let operand = current.isKeyword("WHEN") ? nil : try parseExpression()
        var branches: [SQLWhenClause] = []
        while acceptKeyword("WHEN") {
            let condition = try parseExpression()
            try expectKeyword("THEN", after: "WHEN …")
            branches.append(SQLWhenClause(condition: condition, result: try parseExpression()))
        }
        guard !branches.isEmpty else { throw unexpected(expected: "WHEN … THEN … in CASE") }
        let otherwise = acceptKeyword("ELSE") ? try parseExpression() : nil
        guard acceptKeyword("END") else { throw unexpected(expected: "END to close the CASE at \(start.location)") }
        return try node(.caseWhen(operand: operand, branches: branches, otherwise: otherwise), at: start.location)
    }

    private mutating func parseCast() throws(ODataError) -> SQLExpression {
        let start = advance()
        try expectSymbol(.leftParen, "'(' after CAST")
        let value = try parseExpression()
        try expectKeyword("AS", after: "CAST(…")
        let typeToken = current
        guard case .word = typeToken.kind else { throw unexpected(expected: "a type name") }
        advance()
        if typeToken.upper == "DOUBLE" { _ = acceptKeyword("PRECISION") }
        guard let type = SQLCastType(keyword: typeToken.upper) else {
            throw SQLRefusal.notAllowed("CAST to \(typeToken.display) is not allowed", at: typeToken.location,
                                        hint: "allowed types are \(SQLCastType.acceptedNames)")
        }
        if current.isSymbol(.leftParen) {
            throw SQLRefusal.notAllowed("type arguments such as \(typeToken.display)(…) are not allowed", at: current.location,
                                        hint: "write the type without a length or precision")
        }
        try expectSymbol(.rightParen, "')' to close CAST")
        return try node(.cast(value, type), at: start.location)
    }

    /// Converts a number's digits: integers become `Int32` when they fit, else `Int64`; a fraction
    /// makes a `Decimal` (at most 38 digits); an exponent makes a finite `Double`.
    func numberValue(_ text: String, negative: Bool, at location: SQLSourceLocation) throws(ODataError) -> ODataValue {
        let signed = negative ? "-" + text : text
        if text.contains("e") {
            guard let value = Double(signed), value.isFinite else {
                throw SQLRefusal.syntax("the number \(signed) is out of range", at: location)
            }
            return .double(value)
        }
        if text.contains(".") {
            var digits = text.filter { $0 != "." }
            while digits.hasPrefix("0") { digits.removeFirst() }
            guard digits.count <= 38 else {
                throw SQLRefusal.syntax("the number \(signed.prefix(24))… has more than 38 digits", at: location)
            }
            let normalized = (text.hasPrefix(".") ? "0" : "") + text + (text.hasSuffix(".") ? "0" : "")
            guard let value = Decimal(string: (negative ? "-" : "") + normalized, locale: Locale(identifier: "en_US_POSIX")) else {
                throw SQLRefusal.syntax("malformed number \(signed)", at: location)
            }
            return .decimal(value)
        }
        guard let value = Int64(signed) else {
            throw SQLRefusal.syntax("the integer \(signed.prefix(24))\(signed.count > 24 ? "…" : "") is out of range", at: location,
                                    hint: "integers must fit in 64 bits; write larger values with a decimal point")
        }
        if let small = Int32(exactly: value) { return .int32(small) }
        return .int64(value)
    }
}
