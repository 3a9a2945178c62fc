import StrataCore

/// A table as SQL names it: schema-qualified on PostgreSQL (one schema per service), bare on SQLite.
struct TableName: Sendable, Hashable {
    var schema: String?
    var name: String
}

/// A SQL expression tree. Its text comes only from catalog identifiers (`column`, `TableName`) and
/// compile-time constants (`StaticString` in operators and templates); every value is a bound parameter.
/// That makes "no SQL text from request input" a property of the types, not of care.
indirect enum SQLTerm: Sendable {
    /// `"alias"."column"`; the alias is one the planner made (`t0`, `t1`), the column a catalog name.
    case column(alias: String?, name: String)
    /// A bound parameter.
    case value(ODataValue)
    /// The keyword NULL (never bound, so PostgreSQL needs no type for it).
    case null
    case binary(SQLOperator, SQLTerm, SQLTerm)
    case not(SQLTerm)
    case isNull(SQLTerm, negated: Bool)
    case and([SQLTerm])
    case or([SQLTerm])
    case inList(SQLTerm, [SQLTerm])
    case exists(SelectQuery)
    /// Fixed SQL text around sub-expressions, for functions and casts whose spelling differs per dialect.
    case template([SQLTemplatePiece])

    static let alwaysTrue = SQLTerm.template([.text("1 = 1")])
    static let alwaysFalse = SQLTerm.template([.text("1 = 0")])

    /// `fn(arg, arg…)` for a function name fixed in code.
    static func call(_ name: StaticString, _ arguments: [SQLTerm]) -> SQLTerm {
        var pieces: [SQLTemplatePiece] = [.text(name), .text("(")]
        for (index, argument) in arguments.enumerated() {
            if index > 0 { pieces.append(.text(", ")) }
            pieces.append(.expression(argument))
        }
        pieces.append(.text(")"))
        return .template(pieces)
    }

    static func equals(_ lhs: SQLTerm, _ rhs: SQLTerm) -> SQLTerm { .binary(.equal, lhs, rhs) }
}

enum SQLTemplatePiece: Sendable, ExpressibleByStringLiteral {
    case text(StaticString)
    case expression(SQLTerm)

    /// A string literal in a template is fixed SQL text: `.template(["NULLIF(", .expression(x), ", 0)"])`.
    init(stringLiteral value: StaticString) {
        self = .text(value)
    }
}

/// Binary operators whose spelling is the same in SQLite and PostgreSQL.
enum SQLOperator: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case add, subtract, multiply, divide, modulo, concat

    var sql: StaticString {
        switch self {
        case .equal: return "="
        case .notEqual: return "<>"
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .modulo: return "%"
        case .concat: return "||"
        }
    }
}

/// An item of a SELECT list: an expression with an optional alias chosen by the planner.
struct SelectColumn: Sendable {
    var expression: SQLTerm
    var alias: String?
}

struct OrderTerm: Sendable {
    var expression: SQLTerm
    var descending: Bool
    /// False for expressions that are never null (keys, NOT NULL columns of the row itself): their
    /// order needs no NULLS FIRST/LAST, which would keep PostgreSQL from reading it off an index.
    var canBeNull: Bool = true
}

struct JoinClause: Sendable {
    enum Kind: Sendable {
        case inner, left

        var sql: StaticString { self == .inner ? "JOIN" : "LEFT JOIN" }
    }
    var kind: Kind
    var table: TableName
    var alias: String
    var on: SQLTerm
}

/// A SELECT statement over catalog tables.
struct SelectQuery: Sendable {
    var items: [SelectColumn]
    var table: TableName
    var alias: String
    var joins: [JoinClause] = []
    var predicate: SQLTerm?
    var orderBy: [OrderTerm] = []
    var limit: Int?
    var offset: Int?
    var distinct = false

    init(items: [SelectColumn], from table: TableName, alias: String) {
        self.items = items
        self.table = table
        self.alias = alias
    }

    /// Adds a condition with AND.
    mutating func filter(_ condition: SQLTerm) {
        if let existing = predicate {
            if case .and(var terms) = existing {
                terms.append(condition)
                predicate = .and(terms)
            } else {
                predicate = .and([existing, condition])
            }
        } else {
            predicate = condition
        }
    }
}
