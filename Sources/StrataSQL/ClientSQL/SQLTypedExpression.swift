import StrataCore

/// A checked expression: names resolved to table positions and catalog columns, parameters
/// replaced by their values, and each node's EDM type known (nil when only `NULL` is known).
///
/// Equality ignores source locations, so the checker can tell that a select item and a
/// `GROUP BY` entry are the same expression however they were written.
struct SQLTypedExpression: Sendable, Hashable {
    indirect enum Node: Sendable, Hashable {
        /// A column of the table at `source` in ``SQLCheckedStatement/tables``, by its catalog name.
        case column(source: Int, name: String)
        /// A literal or parameter value; bound when emitted, except `NULL`, which is written as the keyword.
        case value(ODataValue)
        case negate(SQLTypedExpression)
        case not(SQLTypedExpression)
        case and([SQLTypedExpression])
        case or([SQLTypedExpression])
        case concat([SQLTypedExpression])
        case arithmetic(SQLArithmeticOperator, SQLTypedExpression, SQLTypedExpression)
        case comparison(SQLComparisonOperator, SQLTypedExpression, SQLTypedExpression)
        case isNull(SQLTypedExpression, negated: Bool)
        case inList(SQLTypedExpression, [SQLTypedExpression], negated: Bool)
        case between(SQLTypedExpression, SQLTypedExpression, SQLTypedExpression, negated: Bool)
        case like(SQLTypedExpression, pattern: SQLTypedExpression, escape: SQLTypedExpression?, negated: Bool)
        /// `whens` holds condition (or compared value) and result alternately.
        case caseWhen(operand: SQLTypedExpression?, whens: [SQLTypedExpression], otherwise: SQLTypedExpression?)
        case cast(SQLTypedExpression, SQLCastType)
        case function(SQLFunction, [SQLTypedExpression], distinct: Bool)
        case countAll
    }

    var node: Node
    var type: EDMPrimitiveType?
    var location: SQLSourceLocation

    init(_ node: Node, type: EDMPrimitiveType?, at location: SQLSourceLocation) {
        self.node = node
        self.type = type
        self.location = location
    }

    static func == (lhs: SQLTypedExpression, rhs: SQLTypedExpression) -> Bool {
        lhs.node == rhs.node && lhs.type == rhs.type
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(node)
        hasher.combine(type)
    }

    /// The direct sub-expressions.
    var children: [SQLTypedExpression] {
        switch node {
        case .column, .value, .countAll: return []
        case .negate(let e), .not(let e), .isNull(let e, _), .cast(let e, _): return [e]
        case .and(let es), .or(let es), .concat(let es), .function(_, let es, _): return es
        case .arithmetic(_, let l, let r), .comparison(_, let l, let r): return [l, r]
        case .inList(let e, let list, _): return [e] + list
        case .between(let e, let low, let high, _): return [e, low, high]
        case .like(let e, let pattern, let escape, _): return [e, pattern] + (escape.map { [$0] } ?? [])
        case .caseWhen(let operand, let whens, let otherwise):
            return (operand.map { [$0] } ?? []) + whens + (otherwise.map { [$0] } ?? [])
        }
    }

    /// Whether an aggregate function appears anywhere in the expression.
    var containsAggregate: Bool {
        switch node {
        case .countAll: return true
        case .function(let function, _, _) where function.isAggregate: return true
        default: return children.contains { $0.containsAggregate }
        }
    }

    /// The value when the expression is a literal or parameter.
    var constantValue: ODataValue? {
        if case .value(let value) = node { return value }
        return nil
    }
}
