import StrataCore

/// An expression of Strata's client SQL dialect, as parsed: names are not resolved yet.
public struct SQLExpression: Sendable, Hashable {
    /// What the expression is, with its operands.
    public indirect enum Kind: Sendable, Hashable {
        /// `col`, `t.col`, `"Quoted Name"`.
        case column(SQLColumnName)
        /// A literal: integers (`Int32` when they fit, else `Int64`), decimals (`Decimal`),
        /// numbers with an exponent (`Double`), strings, `TRUE`/`FALSE`, `NULL`.
        case literal(ODataValue)
        /// `:name`; its value comes from the request's parameter map.
        case parameter(String)
        /// `-x`
        case negate(SQLExpression)
        /// `NOT x`
        case not(SQLExpression)
        /// `a AND b AND …`, kept flat so long conditions do not make the tree deep.
        case and([SQLExpression])
        /// `a OR b OR …`, kept flat for the same reason.
        case or([SQLExpression])
        /// `a || b || …`
        case concat([SQLExpression])
        /// `+ - * / %`
        case arithmetic(SQLArithmeticOperator, SQLExpression, SQLExpression)
        /// `= <> != < <= > >=`
        case comparison(SQLComparisonOperator, SQLExpression, SQLExpression)
        /// `x IS NULL`, `x IS NOT NULL`
        case isNull(SQLExpression, negated: Bool)
        /// `x [NOT] IN (a, b, …)`
        case inList(SQLExpression, [SQLExpression], negated: Bool)
        /// `x [NOT] BETWEEN low AND high`
        case between(SQLExpression, low: SQLExpression, high: SQLExpression, negated: Bool)
        /// `x [NOT] LIKE pattern [ESCAPE e]`
        case like(SQLExpression, pattern: SQLExpression, escape: SQLExpression?, negated: Bool)
        /// `CASE [operand] WHEN … THEN … [ELSE …] END`
        case caseWhen(operand: SQLExpression?, branches: [SQLWhenClause], otherwise: SQLExpression?)
        /// `CAST(x AS type)`
        case cast(SQLExpression, SQLCastType)
        /// A call of an allowed function; the parser refuses every other name.
        case function(SQLFunction, [SQLExpression], distinct: Bool)
        /// `COUNT(*)`
        case countAll
    }

    /// The expression's form and operands.
    public let kind: Kind
    /// Where the expression starts in the client's text.
    public let location: SQLSourceLocation
    /// The height of the tree below this node (1 for a leaf); the parser refuses trees higher than
    /// ``SQLLimits/maxDepth`` so the recursive checker and emitter have bounded stack use.
    public let height: Int

    public init(_ kind: Kind, at location: SQLSourceLocation) {
        self.kind = kind
        self.location = location
        self.height = 1 + (kind.children.map(\.height).max() ?? 0)
    }
}

extension SQLExpression.Kind {
    /// The direct sub-expressions, in source order.
    public var children: [SQLExpression] {
        switch self {
        case .column, .literal, .parameter, .countAll: return []
        case .negate(let e), .not(let e), .isNull(let e, _), .cast(let e, _): return [e]
        case .and(let es), .or(let es), .concat(let es): return es
        case .arithmetic(_, let l, let r), .comparison(_, let l, let r): return [l, r]
        case .inList(let e, let list, _): return [e] + list
        case .between(let e, let low, let high, _): return [e, low, high]
        case .like(let e, let pattern, let escape, _): return [e, pattern] + (escape.map { [$0] } ?? [])
        case .caseWhen(let operand, let branches, let otherwise):
            var all: [SQLExpression] = operand.map { [$0] } ?? []
            for branch in branches { all += [branch.condition, branch.result] }
            if let otherwise { all.append(otherwise) }
            return all
        case .function(_, let args, _): return args
        }
    }
}

/// A column reference as written: an optional table name or alias and the column name.
public struct SQLColumnName: Sendable, Hashable {
    /// The table name or alias before the dot, when there is one.
    public var qualifier: SQLIdentifier?
    public var name: SQLIdentifier

    public init(qualifier: SQLIdentifier?, name: SQLIdentifier) {
        self.qualifier = qualifier
        self.name = name
    }
}

/// A name as the client wrote it. Quoted names match exactly; unquoted names match the catalog's
/// spelling exactly first, then ignoring case when that finds exactly one.
public struct SQLIdentifier: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    /// Whether the client wrote the name in double quotes, which makes it match exactly.
    public var isQuoted: Bool
    public var location: SQLSourceLocation

    public init(_ name: String, quoted: Bool, at location: SQLSourceLocation) {
        self.name = name
        self.isQuoted = quoted
        self.location = location
    }

    /// The name as it would be written: quoted (with inner quotes doubled) when it was quoted.
    public var description: String { isQuoted ? SQLDialect.sqlite.quote(name) : name }
}

/// One `WHEN condition THEN result` of a `CASE`.
public struct SQLWhenClause: Sendable, Hashable {
    public var condition: SQLExpression
    public var result: SQLExpression

    public init(condition: SQLExpression, result: SQLExpression) {
        self.condition = condition
        self.result = result
    }
}

/// The arithmetic operators of the dialect.
public enum SQLArithmeticOperator: String, Sendable, Hashable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    /// Truncating for two integer operands on both databases; division by zero gives NULL.
    case divide = "/"
    /// Integer operands only; the sign follows the dividend on both databases.
    case remainder = "%"
}

/// The comparison operators of the dialect.
public enum SQLComparisonOperator: String, Sendable, Hashable {
    case equal = "="
    /// Written `<>` or `!=`; emitted as `<>`.
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}
