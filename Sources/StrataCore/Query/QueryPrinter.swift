/// Writes query options as canonical URL text that ``QueryOptionParser`` reads back to equal values.
///
/// Canonical means: single spaces around binary operators, none inside calls, parentheses only where
/// precedence needs them, literals as ``ODataLiteral/format(_:)`` writes them, type names quoted.
///
/// The functions without a version print V2; those with `version:` print that version's grammar.
/// In V4, `substringof(a,b)` prints as `contains(b,a)` and literals take V4's forms (no prefixes or
/// suffixes), so some come back as another type: Byte, SByte, Int16 and small Int64 values as
/// `Edm.Int32`, Single as `Edm.Double`, and a date-time that is not midnight as `Edm.DateTimeOffset`
/// (V4 has no `Edm.DateTime`; such values compare alike). In V2, `contains(a,b)` prints as
/// `substringof(b,a)`; lambdas, `in` and `$count` have no V2 form and print as V4 writes them.
public enum QueryPrinter {
    /// The text of a `$filter` (not percent-encoded).
    public static func filter(_ expression: QueryExpression) -> String {
        filter(expression, version: .v2)
    }

    /// The text of a `$filter` in the grammar of `version` (not percent-encoded).
    public static func filter(_ expression: QueryExpression, version: ODataVersion) -> String {
        var out = ""
        write(expression, version.isV4, into: &out)
        return out
    }

    /// The text of `$orderby`: `lastName desc,firstName`.
    public static func orderBy(_ items: [OrderByItem]) -> String {
        orderBy(items, version: .v2)
    }

    /// The text of `$orderby` in the grammar of `version`.
    public static func orderBy(_ items: [OrderByItem], version: ODataVersion) -> String {
        items.map { item in
            filter(item.expression, version: version) + (item.direction == .descending ? " desc" : "")
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

    /// V4's `$expand` with each path's options in parentheses and deeper paths as a nested
    /// `$expand`, `PersonCar($top=1;$expand=Car($select=make))`: what ``ExpandParser`` reads back
    /// into the same paths and options. Without options, the plain list of paths.
    public static func expand(_ paths: [PropertyPath], options: [PropertyPath: ExpandOptions]) -> String {
        guard !options.isEmpty else { return expand(paths) }
        return expandItemList(under: [], paths, options).joined(separator: ",")
    }

    /// The items below `prefix`: `Nav(options;$expand=…)` where `Nav` has options, and `Nav/Deeper(…)`
    /// where only a deeper path has them, so that printing adds no options the parser did not see.
    private static func expandItemList(under prefix: [String], _ paths: [PropertyPath], _ options: [PropertyPath: ExpandOptions]) -> [String] {
        var children: [PropertyPath] = []
        for path in paths where path.segments.count > prefix.count && path.segments.starts(with: prefix) {
            let child = PropertyPath(Array(path.segments.prefix(prefix.count + 1)))
            if !children.contains(child) { children.append(child) }
        }
        return children.flatMap { child -> [String] in
            let name = child.segments.last ?? ""
            let nested = expandItemList(under: child.segments, paths, options)
            guard let own = options[child] else {
                return nested.isEmpty ? [name] : nested.map { name + "/" + $0 }
            }
            var parts = expandOptions(own)
            if !nested.isEmpty { parts.append("$expand=" + nested.joined(separator: ",")) }
            return [name + "(" + parts.joined(separator: ";") + ")"]
        }
    }

    private static func expandOptions(_ options: ExpandOptions) -> [String] {
        var parts: [String] = []
        if let filter = options.filter { parts.append("$filter=" + QueryPrinter.filter(filter, version: .v4)) }
        if !options.orderBy.isEmpty { parts.append("$orderby=" + orderBy(options.orderBy, version: .v4)) }
        if let top = options.top { parts.append("$top=\(top)") }
        if let skip = options.skip { parts.append("$skip=\(skip)") }
        if options.count { parts.append("$count=true") }
        if !options.select.isEmpty { parts.append("$select=" + select(options.select)) }
        return parts
    }

    /// How tightly an expression binds when it is an operand; atoms and calls bind tightest.
    private static func precedence(_ expression: QueryExpression) -> Int {
        switch expression {
        case .binary(let op, _, _): return op.precedence
        case .unary: return ExpressionParser.unaryPrecedence
        default: return ExpressionParser.unaryPrecedence + 1
        }
    }

    private static func write(_ expression: QueryExpression, _ v4: Bool, into out: inout String) {
        switch expression {
        case .literal(let value):
            out += v4 ? v4Literal(value) : ODataLiteral.format(value)
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
            write(leftmost, v4, parenthesized: precedence(leftmost) < spine[spine.count - 1].op.precedence, into: &out)
            for link in spine.reversed() {
                out += " \(link.op.keyword) "
                write(link.rhs, v4, parenthesized: precedence(link.rhs) <= link.op.precedence, into: &out)
            }
        case .unary(let op, let operand):
            out += op == .not ? "not " : "-"
            var parenthesized = precedence(operand) < ExpressionParser.unaryPrecedence
            // `-5` would read back as the literal -5, and `-INFd` as negative infinity, not a negation;
            // in V4 a date or time literal has no prefix either, and `-16:30:00` is no literal at all.
            if op == .negate, case .literal(let value) = operand, value.type?.isNumeric == true || v4 {
                parenthesized = true
            }
            write(operand, v4, parenthesized: parenthesized, into: &out)
        case .call(var function, var arguments):
            // Each version's name for "p0 occurs in p1".
            if v4, function == .substringof, arguments.count == 2 {
                (function, arguments) = (.contains, arguments.reversed())
            } else if !v4, function == .contains, arguments.count == 2 {
                (function, arguments) = (.substringof, arguments.reversed())
            }
            out += function.name + "("
            for (i, argument) in arguments.enumerated() {
                if i > 0 { out += "," }
                write(argument, v4, into: &out)
            }
            out += ")"
        case .isOf(let operand, let typeName):
            writeTypeCall("isof", operand, typeName, v4, into: &out)
        case .cast(let operand, let typeName):
            writeTypeCall("cast", operand, typeName, v4, into: &out)
        case .in(let operand, let items):
            write(operand, v4, parenthesized: precedence(operand) <= ExpressionParser.unaryPrecedence, into: &out)
            out += " in ("
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, v4, into: &out)
            }
            out += ")"
        case .lambda(let path, let op, let variable, let predicate):
            out += "\(path)/\(op.rawValue)("
            if let variable, let predicate {
                out += variable + ":"
                write(predicate, v4, into: &out)
            }
            out += ")"
        case .count(let path):
            out += "\(path)/$count"
        }
    }

    private static func write(_ expression: QueryExpression, _ v4: Bool, parenthesized: Bool, into out: inout String) {
        if parenthesized { out += "(" }
        write(expression, v4, into: &out)
        if parenthesized { out += ")" }
    }

    private static func writeTypeCall(_ name: String, _ operand: QueryExpression?, _ typeName: String, _ v4: Bool, into out: inout String) {
        out += name + "("
        if let operand {
            write(operand, v4, into: &out)
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
        queryString(version: .v2)
    }

    /// The same in the grammar of `version`: V4 prints `$filter` and `$orderby` as V4 writes them,
    /// `$expand` with its nested options, and counts with `$count=true` where V2 writes
    /// `$inlinecount=allpages`.
    public func queryString(version: ODataVersion) -> String {
        var pairs: [(String, String)] = []
        if let filter { pairs.append(("$filter", QueryPrinter.filter(filter, version: version))) }
        if !orderBy.isEmpty { pairs.append(("$orderby", QueryPrinter.orderBy(orderBy, version: version))) }
        if let top { pairs.append(("$top", String(top))) }
        if let skip { pairs.append(("$skip", String(skip))) }
        if !select.isEmpty { pairs.append(("$select", QueryPrinter.select(select))) }
        if !expand.isEmpty {
            pairs.append(("$expand", version.isV4 ? QueryPrinter.expand(expand, options: expandOptions) : QueryPrinter.expand(expand)))
        }
        if let inlineCount {
            if version.isV4 {
                pairs.append(("$count", inlineCount == .allPages ? "true" : "false"))
            } else {
                pairs.append(("$inlinecount", inlineCount.rawValue))
            }
        }
        if let skipToken { pairs.append(("$skiptoken", skipToken)) }
        if let format { pairs.append(("$format", format)) }
        if !apply.isEmpty { pairs.append(("$apply", ApplyTransformation.text(apply))) }
        if !compute.isEmpty { pairs.append(("$compute", compute.map(\.text).joined(separator: ","))) }
        if let search { pairs.append(("$search", search.text)) }
        for option in customOptions { pairs.append((option.name, option.value)) }
        return pairs.map { name, value in
            PercentEncoding.encodeQueryValue(name) + "=" + PercentEncoding.encodeQueryValue(value)
        }.joined(separator: "&")
    }
}
