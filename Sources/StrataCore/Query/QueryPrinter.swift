/// Writes query options as canonical URL text that ``QueryOptionParser`` reads back to equal values.
///
/// Canonical means: single spaces around binary operators, none inside calls, parentheses only where
/// precedence needs them, literals as ``ODataLiteral/format(_:)`` writes them, type names quoted.
public enum QueryPrinter {
    /// The text of a `$filter` (not percent-encoded).
    public static func filter(_ expression: QueryExpression) -> String {
        var out = ""
        write(expression, into: &out)
        return out
    }

    /// The text of `$orderby`: `lastName desc,firstName`.
    public static func orderBy(_ items: [OrderByItem]) -> String {
        items.map { item in
            filter(item.expression) + (item.direction == .descending ? " desc" : "")
        }.joined(separator: ",")
    }

    /// The text of `$select`: `firstName,PersonCar/*`.
    public static func select(_ items: [SelectItem]) -> String {
        items.map(\.description).joined(separator: ",")
    }

    /// The text of `$expand`: `PersonCar,PersonCar/Car`.
    public static func expand(_ paths: [PropertyPath]) -> String {
        paths.map(\.description).joined(separator: ",")
    }

    /// How tightly an expression binds when it is an operand; atoms and calls bind tightest.
    private static func precedence(_ expression: QueryExpression) -> Int {
        switch expression {
        case .binary(let op, _, _): return op.precedence
        case .unary: return ExpressionParser.unaryPrecedence
        default: return ExpressionParser.unaryPrecedence + 1
        }
    }

    private static func write(_ expression: QueryExpression, into out: inout String) {
        switch expression {
        case .literal(let value):
            out += ODataLiteral.format(value)
        case .property(let path):
            out += path.description
        case .binary(let op, let lhs, let rhs):
            // Left-associative chains nest to the left as deep as they are long: follow that spine in a
            // loop while its operands need no parentheses, so that printing recurses only as deep as the
            // parser's depth limit allows.
            var spine: [(op: BinaryOperator, rhs: QueryExpression)] = [(op, rhs)]
            var leftmost = lhs
            while case .binary(let innerOp, let innerLhs, let innerRhs) = leftmost,
                  innerOp.precedence >= spine[spine.count - 1].op.precedence {
                spine.append((innerOp, innerRhs))
                leftmost = innerLhs
            }
            // Left associative: an equal-precedence operand needs parentheses only on the right.
            write(leftmost, parenthesized: precedence(leftmost) < spine[spine.count - 1].op.precedence, into: &out)
            for link in spine.reversed() {
                out += " \(link.op.keyword) "
                write(link.rhs, parenthesized: precedence(link.rhs) <= link.op.precedence, into: &out)
            }
        case .unary(let op, let operand):
            out += op == .not ? "not " : "-"
            var parenthesized = precedence(operand) < ExpressionParser.unaryPrecedence
            // `-5` would read back as the literal -5, and `-INFd` as negative infinity, not a negation.
            if op == .negate, case .literal(let value) = operand, value.type?.isNumeric == true {
                parenthesized = true
            }
            write(operand, parenthesized: parenthesized, into: &out)
        case .call(let function, let arguments):
            out += function.name + "("
            for (i, argument) in arguments.enumerated() {
                if i > 0 { out += "," }
                write(argument, into: &out)
            }
            out += ")"
        case .isOf(let operand, let typeName):
            writeTypeCall("isof", operand, typeName, into: &out)
        case .cast(let operand, let typeName):
            writeTypeCall("cast", operand, typeName, into: &out)
        }
    }

    private static func write(_ expression: QueryExpression, parenthesized: Bool, into out: inout String) {
        if parenthesized { out += "(" }
        write(expression, into: &out)
        if parenthesized { out += ")" }
    }

    private static func writeTypeCall(_ name: String, _ operand: QueryExpression?, _ typeName: String, into out: inout String) {
        out += name + "("
        if let operand {
            write(operand, into: &out)
            out += ","
        }
        out += ODataLiteral.format(.string(typeName)) + ")"
    }
}

extension QueryExpression: CustomStringConvertible {
    /// The canonical `$filter` text of the expression (not percent-encoded).
    public var text: String { QueryPrinter.filter(self) }

    public var description: String { text }
}

extension QueryOptions {
    /// The options as a percent-encoded query string without the leading `?`, system options first
    /// in a fixed order, then custom options as given; empty when no option is set.
    public var queryString: String {
        var pairs: [(String, String)] = []
        if let filter { pairs.append(("$filter", filter.text)) }
        if !orderBy.isEmpty { pairs.append(("$orderby", QueryPrinter.orderBy(orderBy))) }
        if let top { pairs.append(("$top", String(top))) }
        if let skip { pairs.append(("$skip", String(skip))) }
        if !select.isEmpty { pairs.append(("$select", QueryPrinter.select(select))) }
        if !expand.isEmpty { pairs.append(("$expand", QueryPrinter.expand(expand))) }
        if let inlineCount { pairs.append(("$inlinecount", inlineCount.rawValue)) }
        if let skipToken { pairs.append(("$skiptoken", skipToken)) }
        if let format { pairs.append(("$format", format)) }
        if !apply.isEmpty { pairs.append(("$apply", ApplyTransformation.text(apply))) }
        if !compute.isEmpty { pairs.append(("$compute", compute.map(\.text).joined(separator: ","))) }
        for option in customOptions { pairs.append((option.name, option.value)) }
        return pairs.map { name, value in
            PercentEncoding.encodeQueryValue(name) + "=" + PercentEncoding.encodeQueryValue(value)
        }.joined(separator: "&")
    }
}
