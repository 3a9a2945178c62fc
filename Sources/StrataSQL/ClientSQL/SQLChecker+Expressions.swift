import StrataCore

/// Typing expressions by ``SQLTypeRules``.
extension SQLCheckContext {
    mutating func check(_ expression: SQLExpression, _ scope: Scope) throws(ODataError) -> SQLTypedExpression {
        let at = expression.location
        switch expression.kind {
        case .column(let name):
            let (index, column) = try resolveColumn(name, scope)
            return SQLTypedExpression(.column(source: index, name: column.name), type: column.type, at: at)
        case .literal(let value):
            return SQLTypedExpression(.value(value), type: value.type, at: at)
        case .parameter(let name):
            guard let value = parameterValues[name] else {
                throw SQLRefusal.unknownName("the parameter :\(name) has no value", at: at, hint: "send it in \"parameters\"")
            }
            if !usedParameters.contains(name) { usedParameters.append(name) }
            return SQLTypedExpression(.value(value), type: value.type, at: at)
        case .negate(let operand):
            let typed = try check(operand, scope)
            guard case .type(let type) = SQLTypeRules.arithmetic(.subtract, nil, typed.type) else {
                throw SQLRefusal.type("'-' needs a number, not \(SQLTypeRules.name(typed.type))", at: at)
            }
            return SQLTypedExpression(.negate(typed), type: type, at: at)
        case .not(let operand):
            let typed = try requireCondition(try check(operand, scope), in: "NOT")
            return SQLTypedExpression(.not(typed), type: .boolean, at: at)
        case .and(let terms):
            return SQLTypedExpression(.and(try conditions(terms, scope, "AND")), type: .boolean, at: at)
        case .or(let terms):
            return SQLTypedExpression(.or(try conditions(terms, scope, "OR")), type: .boolean, at: at)
        case .concat(let terms):
            var typed: [SQLTypedExpression] = []
            for term in terms {
                let t = try check(term, scope)
                if let type = t.type, type != .string, !type.isIntegral {
                    throw SQLRefusal.type("'||' joins strings and whole numbers, not \(type.qualifiedName)", at: t.location,
                                          hint: "convert it with CAST(… AS TEXT) first")
                }
                typed.append(t)
            }
            return SQLTypedExpression(.concat(typed), type: .string, at: at)
        case .arithmetic(let op, let lhs, let rhs):
            let l = try check(lhs, scope), r = try check(rhs, scope)
            guard case .type(let type) = SQLTypeRules.arithmetic(op, l.type, r.type) else {
                let hint = op == .remainder ? "% takes whole numbers" : l.type == .string || r.type == .string ? "use || to join strings" : nil
                throw SQLRefusal.type("'\(op.rawValue)' cannot combine \(SQLTypeRules.name(l.type)) and \(SQLTypeRules.name(r.type))", at: at, hint: hint)
            }
            return SQLTypedExpression(.arithmetic(op, l, r), type: type, at: at)
        case .comparison(let op, let lhs, let rhs):
            let (operands, type) = try harmonize([try check(lhs, scope), try check(rhs, scope)], "'\(op.rawValue)'", at: at)
            if op != .equal && op != .notEqual { try requireOrderable(type, "'\(op.rawValue)'", at: at) }
            return SQLTypedExpression(.comparison(op, operands[0], operands[1]), type: .boolean, at: at)
        case .isNull(let operand, let negated):
            return SQLTypedExpression(.isNull(try check(operand, scope), negated: negated), type: .boolean, at: at)
        case .inList(let operand, let list, let negated):
            var typed = [try check(operand, scope)]
            for item in list { typed.append(try check(item, scope)) }
            let (operands, _) = try harmonize(typed, "IN", at: at)
            return SQLTypedExpression(.inList(operands[0], Array(operands.dropFirst()), negated: negated), type: .boolean, at: at)
        case .between(let operand, let low, let high, let negated):
            let (operands, type) = try harmonize([try check(operand, scope), try check(low, scope), try check(high, scope)], "BETWEEN", at: at)
            try requireOrderable(type, "BETWEEN", at: at)
            return SQLTypedExpression(.between(operands[0], operands[1], operands[2], negated: negated), type: .boolean, at: at)
        case .like(let operand, let pattern, let escape, let negated):
            return try checkLike(operand, pattern, escape, negated: negated, scope, at: at)
        case .caseWhen(let operand, let branches, let otherwise):
            return try checkCase(operand, branches, otherwise, scope, at: at)
        case .cast(let operand, let target):
            let typed = try check(operand, scope)
            if let type = typed.type, !type.isNumeric, type != .string {
                throw SQLRefusal.type("CAST from \(type.qualifiedName) is not allowed", at: at,
                                      hint: "CAST converts numbers and strings; use YEAR, MONTH, DAY … for parts of dates")
            }
            return SQLTypedExpression(.cast(typed, target), type: target.edmType, at: at)
        case .function(let function, let arguments, let distinct):
            return try checkFunction(function, arguments, distinct: distinct, scope, at: at)
        case .countAll:
            try checkAggregatePlacement("COUNT", scope, at: at)
            return SQLTypedExpression(.countAll, type: .int64, at: at)
        }
    }

    private mutating func conditions(_ terms: [SQLExpression], _ scope: Scope, _ what: String) throws(ODataError) -> [SQLTypedExpression] {
        var typed: [SQLTypedExpression] = []
        for term in terms { typed.append(try requireCondition(try check(term, scope), in: what)) }
        return typed
    }

    func requireCondition(_ expression: SQLTypedExpression, in clause: Scope.Clause) throws(ODataError) -> SQLTypedExpression {
        try requireCondition(expression, in: clause.rawValue)
    }

    /// Conditions must be `Edm.Boolean` (or `NULL`): SQLite would take any value, PostgreSQL would not.
    func requireCondition(_ expression: SQLTypedExpression, in what: String) throws(ODataError) -> SQLTypedExpression {
        if let type = expression.type, type != .boolean {
            throw SQLRefusal.type("\(what) needs a condition (Edm.Boolean), not \(type.qualifiedName)", at: expression.location,
                                  hint: "compare the value, as in x <> 0")
        }
        return expression
    }

    func requireOrderable(_ type: EDMPrimitiveType?, _ what: String, at location: SQLSourceLocation) throws(ODataError) {
        if let type, !SQLTypeRules.isOrderable(type), type != .boolean {
            throw SQLRefusal.type("\(what) cannot order \(type.qualifiedName) values", at: location, hint: "compare them with = or <>")
        }
    }

    /// Brings operands that must share a type to one: string constants next to dates, times or
    /// guids are converted; otherwise the types must be equal or all numeric.
    func harmonize(_ operands: [SQLTypedExpression], _ what: String, at location: SQLSourceLocation) throws(ODataError) -> ([SQLTypedExpression], EDMPrimitiveType?) {
        var converted = operands
        if let target = operands.compactMap(\.type).first(where: SQLTypeRules.convertsStrings) {
            for index in converted.indices {
                guard case .value(.string(let text)) = converted[index].node else { continue }
                guard let value = SQLTypeRules.convert(text, to: target) else {
                    throw SQLRefusal.type("'\(text.prefix(40))' is not a valid \(target.qualifiedName)", at: converted[index].location,
                                          hint: target == .guid ? "write a guid as 12345678-aaaa-bbbb-cccc-ddddeeeeffff" : "write it as 2009-11-01 or 2009-11-01T13:20:00")
                }
                converted[index] = SQLTypedExpression(.value(value), type: target, at: converted[index].location)
            }
        }
        switch SQLTypeRules.common(converted.map(\.type)) {
        case .type(let type): return (converted, type)
        case .mismatch:
            var names: [String] = []
            for type in converted.compactMap(\.type) where !names.contains(type.qualifiedName) { names.append(type.qualifiedName) }
            throw SQLRefusal.type("\(what) cannot mix \(names.joined(separator: " and "))", at: location,
                                  hint: "compare values of one type; CAST converts between numbers and strings")
        }
    }

    private mutating func checkLike(
        _ operand: SQLExpression, _ pattern: SQLExpression, _ escape: SQLExpression?, negated: Bool, _ scope: Scope, at: SQLSourceLocation
    ) throws(ODataError) -> SQLTypedExpression {
        let subject = try check(operand, scope), typedPattern = try check(pattern, scope)
        for part in [subject, typedPattern] {
            if let type = part.type, type != .string {
                throw SQLRefusal.type("LIKE compares strings, not \(type.qualifiedName)", at: part.location, hint: "convert it with CAST(… AS TEXT)")
            }
        }
        var typedEscape: SQLTypedExpression?
        if let escape {
            let typed = try check(escape, scope)
            // Both databases fail at run time on an escape that is not one character, so it must be known now.
            guard case .value(.string(let text)) = typed.node, text.unicodeScalars.count == 1,
                  let scalar = text.unicodeScalars.first, !("a"..."z").contains(scalar), !("A"..."Z").contains(scalar) else {
                throw SQLRefusal.type("ESCAPE needs one character that is not a letter, as a literal or parameter", at: typed.location,
                                      hint: "write ESCAPE '\\'")
            }
            typedEscape = typed
        }
        return SQLTypedExpression(.like(subject, pattern: typedPattern, escape: typedEscape, negated: negated), type: .boolean, at: at)
    }

    private mutating func checkCase(
        _ operand: SQLExpression?, _ branches: [SQLWhenClause], _ otherwise: SQLExpression?, _ scope: Scope, at: SQLSourceLocation
    ) throws(ODataError) -> SQLTypedExpression {
        var whens: [SQLTypedExpression] = []
        var results: [SQLTypedExpression] = []
        var typedOperand: SQLTypedExpression?
        if let operand {
            var compared = [try check(operand, scope)]
            for branch in branches { compared.append(try check(branch.condition, scope)) }
            let (converted, _) = try harmonize(compared, "CASE", at: at)
            typedOperand = converted[0]
            whens = Array(converted.dropFirst())
        } else {
            for branch in branches { whens.append(try requireCondition(try check(branch.condition, scope), in: "WHEN")) }
        }
        for branch in branches { results.append(try check(branch.result, scope)) }
        if let otherwise { results.append(try check(otherwise, scope)) }
        let (converted, type) = try harmonize(results, "the results of CASE", at: at)
        var interleaved: [SQLTypedExpression] = []
        for (when, result) in zip(whens, converted) { interleaved += [when, result] }
        let elseResult = otherwise == nil ? nil : converted.last
        return SQLTypedExpression(.caseWhen(operand: typedOperand, whens: interleaved, otherwise: elseResult), type: type, at: at)
    }

    /// Aggregates belong in the select list, `HAVING` and `ORDER BY`, and not inside one another.
    func checkAggregatePlacement(_ name: String, _ scope: Scope, at location: SQLSourceLocation) throws(ODataError) {
        guard scope.clause.allowsAggregates else {
            throw SQLRefusal.notAllowed("the aggregate function \(name) is not allowed in \(scope.clause.rawValue)", at: location,
                                        hint: scope.clause == .filter ? "conditions on aggregates go in HAVING" : nil)
        }
        if scope.insideAggregate {
            throw SQLRefusal.notAllowed("aggregate functions cannot be nested", at: location)
        }
    }
}
