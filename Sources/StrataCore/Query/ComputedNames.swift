/// Replaces the names a query gave to computed values (`compute(price mul 2 as P)`, `$compute`) with
/// the expressions they stand for, and the names of an aggregated result's columns with the names
/// its binder knows them by: a computed property is then an ordinary expression wherever it is used,
/// and the binder and the SQL never see an alias.
struct ComputedNames {
    /// Expressions by the alias that names them.
    var expressions: [String: QueryExpression] = [:]
    /// Properties to rename, by the path written (`Car/make`), to a one-segment path.
    var renamed: [[String]: String] = [:]
    /// True after an aggregation, where only the renamed paths and the aliases exist: any other path
    /// is refused here, with the list of what the result has. False on entities, whose properties the
    /// expression binder checks.
    var knownOnly: Bool = false
    /// The names listed in the message for a path that is not one of them.
    var available: [String] = []

    /// The largest expression substitution may produce: aliases that use aliases could otherwise
    /// double it at each step.
    static let maxNodes = 5_000

    func resolve(_ expression: QueryExpression, option: String) throws(ODataError) -> QueryExpression {
        var nodes = 0
        return try resolve(expression, option: option, nodes: &nodes)
    }

    private func resolve(_ expression: QueryExpression, option: String, nodes: inout Int) throws(ODataError) -> QueryExpression {
        nodes += 1
        guard nodes <= Self.maxNodes else {
            throw .badRequest("\(option): the expression is larger than \(Self.maxNodes) nodes once its computed properties are replaced by what they compute")
        }
        switch expression {
        case .literal:
            return expression
        case .property(let path):
            if path.segments.count == 1, let replacement = expressions[path.segments[0]] {
                return try resolve(replacement, option: option, nodes: &nodes)
            }
            if let name = renamed[path.segments] { return .property(PropertyPath([name])) }
            guard !knownOnly else {
                throw .badRequest("\(option): \(QuerySyntaxError.quoted(path.description)) is not a property of the aggregated result; it has "
                                  + available.joined(separator: ", "))
            }
            return expression
        case .binary(let op, let lhs, let rhs):
            return .binary(op, try resolve(lhs, option: option, nodes: &nodes), try resolve(rhs, option: option, nodes: &nodes))
        case .unary(let op, let operand):
            return .unary(op, try resolve(operand, option: option, nodes: &nodes))
        case .call(let function, let arguments):
            var resolved: [QueryExpression] = []
            for argument in arguments { resolved.append(try resolve(argument, option: option, nodes: &nodes)) }
            return .call(function, resolved)
        case .isOf(let operand, let typeName):
            return .isOf(try operand.map { (e) throws(ODataError) in try resolve(e, option: option, nodes: &nodes) }, typeName: typeName)
        case .cast(let operand, let typeName):
            return .cast(try operand.map { (e) throws(ODataError) in try resolve(e, option: option, nodes: &nodes) }, typeName: typeName)
        case .in(let operand, let items):
            var resolved: [QueryExpression] = []
            for item in items { resolved.append(try resolve(item, option: option, nodes: &nodes)) }
            return .in(try resolve(operand, option: option, nodes: &nodes), resolved)
        case .lambda(let path, _, _, _), .count(let path):
            // Collections of related entities: an aggregated result has none.
            guard !knownOnly else {
                throw .badRequest("\(option): \(QuerySyntaxError.quoted(path.description)) is a collection of related entities, which the aggregated result does not have; it has "
                                  + available.joined(separator: ", "))
            }
            return expression
        }
    }
}

extension BoundExpression {
    /// The same expression with properties renamed (`Car/make` → `c0`): how the SQL names the
    /// columns of an aggregated result.
    func renamingProperties(_ names: [String: String]) -> BoundExpression {
        var copy = self
        switch node {
        case .literal:
            break
        case .property(var path):
            if let name = names[path.property.name] { path.property.name = name }
            copy.node = .property(path)
        case .binary(let op, let lhs, let rhs, let operandType):
            copy.node = .binary(op, lhs.renamingProperties(names), rhs.renamingProperties(names), operandType: operandType)
        case .unary(let op, let operand):
            copy.node = .unary(op, operand.renamingProperties(names))
        case .call(let function, let arguments):
            copy.node = .call(function, arguments.map { $0.renamingProperties(names) })
        case .cast(let operand):
            copy.node = .cast(operand.renamingProperties(names))
        case .lambda, .count:
            // About related collections, which ComputedNames refuses in an aggregated result.
            break
        }
        return copy
    }
}
