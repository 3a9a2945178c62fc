/// A precedence-climbing parser for `$filter` and `$orderby` expressions.
///
/// Binary operator chains are parsed in loops, so only grouping, calls and unary operators recurse;
/// each of those counts towards ``QueryLimits/maxFilterDepth`` before the recursion happens, which
/// keeps the stack bounded whatever the input. Every node counts towards ``QueryLimits/maxFilterNodes``.
struct ExpressionParser {
    /// Unary operators bind tighter than every binary operator.
    static let unaryPrecedence = 7

    let option: String
    let limits: QueryLimits
    /// The grammar: V2's, or V4's with its literals, functions, `in`, lambdas and `$count`
    /// (`ExpressionParser+V4.swift`).
    let version: ODataVersion
    private var tokens: [QueryToken]
    private var position = 0
    var depth = 0
    private var nodes = 0
    /// The lambda variables in scope (V4), innermost last.
    var lambdaVariables: [String] = []

    init(_ text: String, option: String, limits: QueryLimits, version: ODataVersion = .v2) throws(ODataError) {
        self.option = option
        self.limits = limits
        self.version = version.isV4 ? .v4 : .v2
        self.tokens = try QueryLexer.tokenize(text, option: option, version: self.version)
    }

    var current: QueryToken { tokens[position] }
    var previous: QueryToken? { position > 0 ? tokens[position - 1] : nil }
    var following: QueryToken? { position + 1 < tokens.count ? tokens[position + 1] : nil }

    mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    func error(_ what: String, at token: QueryToken? = nil, hint: String? = nil) -> ODataError {
        QuerySyntaxError.make(option, what, column: (token ?? current).column, hint: hint)
    }

    /// An expression of any precedence: what `$filter` holds and each `$orderby` key is.
    mutating func parseExpression() throws(ODataError) -> QueryExpression {
        try parseBinary(minPrecedence: 1)
    }

    private mutating func parseBinary(minPrecedence: Int) throws(ODataError) -> QueryExpression {
        var lhs = try parseUnary()
        // V4 (4.01) spells operators in any case; V2 only in lowercase.
        while case .identifier(let name) = current.kind, let op = BinaryOperator(rawValue: version.isV4 ? name.lowercased() : name),
              op.precedence >= minPrecedence {
            advance()
            // Left associative: the right operand takes only tighter-binding operators.
            let rhs = try parseBinary(minPrecedence: op.precedence + 1)
            lhs = try node(.binary(op, lhs, rhs))
        }
        return lhs
    }

    private mutating func parseUnary() throws(ODataError) -> QueryExpression {
        let op: UnaryOperator
        switch current.kind {
        case .identifier("not"): op = .not
        case .identifier(let word) where version.isV4 && word.lowercased() == "not" && following?.kind != .slash: op = .not
        case .minus: op = .negate
        default:
            let primary = try parsePrimary()
            return version.isV4 ? try parseV4Postfix(primary) : primary
        }
        try enter()
        advance()
        let operand = try parseUnary()
        depth -= 1
        return try node(.unary(op, operand))
    }

    private mutating func parsePrimary() throws(ODataError) -> QueryExpression {
        let token = current
        switch token.kind {
        case .literal(let value):
            advance()
            return try node(.literal(value))
        case .openParen:
            try enter()
            advance()
            let inner = try parseExpression()
            guard current.kind == .closeParen else {
                throw unexpected(expecting: "expected ')' to close the '(' at column \(token.column)")
            }
            advance()
            depth -= 1
            return inner
        case .identifier(let name):
            if following?.kind == .openParen { return try parseCall(name) }
            if version.isV4 { return try parseV4Path() }
            return try node(.property(try parsePath()))
        default:
            throw missingOperand()
        }
    }

    func missingOperand() -> ODataError {
        let found = current.kind == .end ? nil : "found \(QuerySyntaxError.quoted(current.text))"
        if let previous {
            return error("expected an operand after \(QuerySyntaxError.quoted(previous.text))", hint: found)
        }
        return error("expected an operand", hint: found)
    }

    /// `Name` or `Nav/Nav/Name`, written without spaces: `a/ eq 1` is an error, not the path `a/eq`.
    private mutating func parsePath() throws(ODataError) -> PropertyPath {
        var segments: [String] = []
        while true {
            guard case .identifier(let name) = current.kind, segments.isEmpty || current.column == previous.map(Self.end) else {
                let column = previous.map(Self.end) ?? current.column
                throw QuerySyntaxError.make(option, "expected a property name after '/'", column: column)
            }
            segments.append(name)
            advance()
            guard current.kind == .slash, current.column == previous.map(Self.end) else { return PropertyPath(segments) }
            advance()
        }
    }

    /// The column just past a token.
    static func end(of token: QueryToken) -> Int { token.column + token.text.unicodeScalars.count }

    // The errors of a call are made in functions of their own: their text would otherwise take
    // stack in every level of nested calls (`substring(substring(…` recurses through here), which
    // unoptimized builds do not share (QueryLimitsTests checks the worst case on a 512 KiB stack).
    @inline(never)
    private func unknownFunction(_ name: String) -> ODataError {
        let known = QueryFunction.functions(in: version)
        if version.isV4, name == QueryFunction.substringof.name {
            return error("substringof is OData V2's", hint: "OData V4 writes contains(p1,p0): contains(firstName,'ob') for substringof('ob',firstName)")
        }
        let lowered = name.lowercased()
        let hint = QueryFunction(rawValue: lowered).map(known.contains) == true || lowered == "isof" || lowered == "cast"
            ? "function names are lowercase: \(lowered)"
            : "the functions are " + (known.map(\.name) + ["isof", "cast"]).joined(separator: ", ")
        return error("unknown function \(QuerySyntaxError.quoted(name))", hint: hint)
    }

    @inline(never)
    private func unexpectedInArguments(of name: String) -> ODataError {
        unexpected(expecting: "expected ',' or ')' in the arguments of \(name)")
    }

    @inline(never)
    private func wrongArity(_ function: QueryFunction, _ count: Int, at token: QueryToken) -> ODataError {
        error("\(function.name) takes \(function.arityDescription), not \(count),", at: token, hint: function.signatures.joined(separator: " or "))
    }

    private mutating func parseCall(_ name: String) throws(ODataError) -> QueryExpression {
        let nameToken = current
        if name == "isof" || name == "cast" { return try parseTypeCall(name) }
        guard let function = QueryFunction(rawValue: name), QueryFunction.functions(in: version).contains(function) else {
            throw unknownFunction(name)
        }
        try enter()
        advance()
        advance()
        var arguments: [QueryExpression] = []
        if current.kind != .closeParen {
            while true {
                arguments.append(try parseExpression())
                if current.kind == .comma { advance(); continue }
                guard current.kind == .closeParen else { throw unexpectedInArguments(of: name) }
                break
            }
        }
        advance()
        depth -= 1
        guard function.arity.contains(arguments.count) else {
            throw wrongArity(function, arguments.count, at: nameToken)
        }
        return try node(.call(function, arguments))
    }

    /// `isof('T')`, `isof(x,'T')`, `cast(x,'T')`; the type name may also be written unquoted, `Edm.Int32`.
    private mutating func parseTypeCall(_ name: String) throws(ODataError) -> QueryExpression {
        try enter()
        advance()
        advance()
        var operand: QueryExpression?
        let typeName: String
        let typeOnly: Bool
        switch (current.kind, following?.kind) {
        case (.literal(.string), .closeParen?): typeOnly = true
        case (.identifier, .dot?): typeOnly = true
        default: typeOnly = false
        }
        if typeOnly {
            typeName = try parseTypeName(in: name)
        } else {
            operand = try parseExpression()
            guard current.kind == .comma else {
                throw unexpected(expecting: "expected ',' and a type name in \(name), as in \(name)(x,'Edm.Int32')")
            }
            advance()
            typeName = try parseTypeName(in: name)
        }
        guard current.kind == .closeParen else {
            throw unexpected(expecting: "expected ')' after the type name of \(name)")
        }
        advance()
        depth -= 1
        return try node(name == "isof" ? .isOf(operand, typeName: typeName) : .cast(operand, typeName: typeName))
    }

    private mutating func parseTypeName(in function: String) throws(ODataError) -> String {
        if case .literal(.string(let text)) = current.kind {
            advance()
            return text
        }
        guard case .identifier(var name) = current.kind else {
            throw error("expected a type name in \(function)", hint: "write it as 'Edm.Int32' or 'Namespace.EntityType'")
        }
        advance()
        while current.kind == .dot {
            advance()
            guard case .identifier(let part) = current.kind else {
                throw error("expected a name after '.' in the type name of \(function)")
            }
            name += "." + part
            advance()
        }
        return name
    }

    /// The error for a token that cannot continue the expression where `expecting` was needed.
    func unexpected(expecting: String) -> ODataError {
        switch current.kind {
        case .identifier(let name):
            if let op = BinaryOperator(rawValue: name.lowercased()) {
                return error("unknown operator \(QuerySyntaxError.quoted(name))", hint: "operators are lowercase: \(op.keyword)")
            }
            return error("unknown operator \(QuerySyntaxError.quoted(name))",
                         hint: "the operators are " + BinaryOperator.allCases.map(\.keyword).joined(separator: ", "))
        case .end:
            return error(expecting + ", but the text ends")
        default:
            return error(expecting + ", found \(QuerySyntaxError.quoted(current.text))")
        }
    }

    mutating func enter() throws(ODataError) {
        depth += 1
        guard depth <= limits.maxFilterDepth else {
            throw error("the expression nests deeper than the limit of \(limits.maxFilterDepth) levels")
        }
    }

    mutating func node(_ expression: QueryExpression) throws(ODataError) -> QueryExpression {
        nodes += 1
        guard nodes <= limits.maxFilterNodes else {
            throw error("the expression has more than the limit of \(limits.maxFilterNodes) nodes")
        }
        return expression
    }
}
