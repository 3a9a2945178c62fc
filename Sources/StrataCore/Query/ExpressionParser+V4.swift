/// The parts of V4's expression grammar that V2 lacks: paths that end in a lambda (`Nav/any(d:…)`,
/// `Nav/all(d:…)`, `Nav/any()`) or in `/$count`, `$it`, and the `in` operator. `has` and
/// enumeration literals are refused with a message, since Strata's models have no enumerations.
extension ExpressionParser {
    /// A path, a lambda or a `$count`, starting at the current identifier.
    mutating func parseV4Path() throws(ODataError) -> QueryExpression {
        var segments: [String] = []
        while true {
            guard case .identifier(let name) = current.kind, segments.isEmpty || current.column == previous.map(Self.end) else {
                let column = previous.map(Self.end) ?? current.column
                throw QuerySyntaxError.make(option, "expected a property name after '/'", column: column)
            }
            if !segments.isEmpty, let op = LambdaOperator(rawValue: name), following?.kind == .openParen {
                return try parseLambda(PropertyPath(segments), op)
            }
            if name == "$count" {
                guard !segments.isEmpty else {
                    throw error("$count counts a collection", hint: "write it after a collection-valued navigation property, as in Orders/$count gt 1")
                }
                advance()
                if current.kind == .openParen {
                    throw error("$count with options is not supported", hint: "count what a lambda tests instead, or filter with Nav/any(x:…)")
                }
                return try node(.count(PropertyPath(segments)))
            }
            if name.hasPrefix("$"), name != "$it" || !segments.isEmpty {
                throw error("\(QuerySyntaxError.quoted(name)) is not supported in \(option)",
                            hint: "paths start at a property, at $it or at a lambda variable")
            }
            segments.append(name)
            advance()
            guard current.kind == .slash, current.column == previous.map(Self.end) else { break }
            advance()
        }
        if segments == ["$it"] {
            throw error("$it alone is the entity, not a value", hint: "name one of its properties, as in $it/Name")
        }
        return try node(.property(PropertyPath(segments)))
    }

    /// `any(v:predicate)`, `all(v:predicate)` or `any()`, the current token being the operator.
    private mutating func parseLambda(_ path: PropertyPath, _ op: LambdaOperator) throws(ODataError) -> QueryExpression {
        try enter()
        advance()
        advance()
        let example = "\(path)/\(op.rawValue)(x:x/Name eq 'A')"
        if current.kind == .closeParen {
            guard op == .any else { throw error("all needs a variable and a predicate", hint: "as in \(example)") }
            advance()
            depth -= 1
            return try node(.lambda(path, .any, variable: nil, predicate: nil))
        }
        guard case .identifier(let variable) = current.kind, !variable.hasPrefix("$"), following?.kind == .colon else {
            throw error("expected a variable name and ':' in \(op.rawValue)(", hint: "as in \(example)")
        }
        guard !lambdaVariables.contains(variable) else {
            throw error("the lambda variable \(QuerySyntaxError.quoted(variable)) is already used by an enclosing lambda", hint: "give each lambda its own variable")
        }
        advance()
        advance()
        lambdaVariables.append(variable)
        let predicate = try parseExpression()
        lambdaVariables.removeLast()
        guard current.kind == .closeParen else {
            throw unexpected(expecting: "expected ')' to close \(op.rawValue)(")
        }
        advance()
        depth -= 1
        return try node(.lambda(path, op, variable: variable, predicate: predicate))
    }

    /// `x in (a,b,…)` after an operand; `has` is refused.
    mutating func parseV4Postfix(_ operand: QueryExpression) throws(ODataError) -> QueryExpression {
        guard case .identifier(let word) = current.kind else { return operand }
        switch word {
        case "in":
            try enter()
            advance()
            guard current.kind == .openParen else {
                throw error("expected '(' and a list of values after in", hint: "as in Name in ('a','b')")
            }
            advance()
            // The list holds literals (V4's listExpr); an empty list matches nothing. One expression
            // in parentheses is a collection of one (4.01).
            var items: [QueryExpression] = []
            if case .literal = current.kind {} else if current.kind != .closeParen {
                items.append(try parseExpression())
                guard current.kind == .closeParen else {
                    throw error("the list after in holds literals, found \(QuerySyntaxError.quoted(current.text))",
                                hint: "compare with other properties using eq and or")
                }
            }
            while current.kind != .closeParen {
                guard case .literal(let value) = current.kind else {
                    throw error("the list after in holds literals, found \(QuerySyntaxError.quoted(current.text))",
                                hint: "compare with other properties using eq and or")
                }
                advance()
                items.append(try node(.literal(value)))
                if current.kind == .comma { advance(); continue }
                guard current.kind == .closeParen else { throw unexpected(expecting: "expected ',' or ')' in the list after in") }
            }
            advance()
            depth -= 1
            return try node(.in(operand, items))
        case "has":
            throw error("has tests the flags of an enumeration", hint: "Strata's services have no enumeration types")
        default:
            return operand
        }
    }
}
