import StrataCore

/// A table as SQL names it: schema-qualified on PostgreSQL (one schema per service), bare on SQLite.
package struct TableName: Sendable, Hashable {
    package init(schema: String? = nil, name: String) {
        self.schema = schema
        self.name = name
    }

    package var schema: String?
    package var name: String
}

/// A SQL expression tree. Its text comes only from catalog identifiers (`column`, `TableName`) and
/// compile-time constants (`StaticString` in operators and templates); every value is a bound parameter.
/// That makes "no SQL text from request input" a property of the types, not of care.
package indirect enum SQLTerm: Sendable {
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
    /// `(SELECT …)`: a subquery of one row and one column, used as a value (`Nav/$count`).
    case subquery(SelectQuery)
    /// Fixed SQL text around sub-expressions, for functions and casts whose spelling differs per dialect.
    case template([SQLTemplatePiece])

    package static let alwaysTrue = SQLTerm.template([.text("1 = 1")])
    package static let alwaysFalse = SQLTerm.template([.text("1 = 0")])

    /// `fn(arg, arg…)` for a function name fixed in code.
    package static func call(_ name: StaticString, _ arguments: [SQLTerm]) -> SQLTerm {
        var pieces: [SQLTemplatePiece] = [.text(name), .text("(")]
        for (index, argument) in arguments.enumerated() {
            if index > 0 { pieces.append(.text(", ")) }
            pieces.append(.expression(argument))
        }
        pieces.append(.text(")"))
        return .template(pieces)
    }

    package static func equals(_ lhs: SQLTerm, _ rhs: SQLTerm) -> SQLTerm { .binary(.equal, lhs, rhs) }
}

package enum SQLTemplatePiece: Sendable, ExpressibleByStringLiteral {
    case text(StaticString)
    case expression(SQLTerm)

    /// A string literal in a template is fixed SQL text: `.template(["NULLIF(", .expression(x), ", 0)"])`.
    package init(stringLiteral value: StaticString) {
        self = .text(value)
    }
}

/// Binary operators whose spelling is the same in SQLite and PostgreSQL.
package enum SQLOperator: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case add, subtract, multiply, divide, modulo, concat

    package var sql: StaticString {
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
package struct SelectColumn: Sendable {
    package init(expression: SQLTerm, alias: String? = nil) {
        self.expression = expression
        self.alias = alias
    }

    package var expression: SQLTerm
    package var alias: String?
}

package struct OrderTerm: Sendable {
    package init(expression: SQLTerm, descending: Bool, canBeNull: Bool = true) {
        self.expression = expression
        self.descending = descending
        self.canBeNull = canBeNull
    }

    package var expression: SQLTerm
    package var descending: Bool
    /// False for expressions that are never null (keys, NOT NULL columns of the row itself): their
    /// order needs no NULLS FIRST/LAST, which would keep PostgreSQL from reading it off an index.
    package var canBeNull: Bool = true
}

package struct JoinClause: Sendable {
    package init(kind: Kind, table: TableName, alias: String, on: SQLTerm) {
        self.kind = kind
        self.table = table
        self.alias = alias
        self.on = on
    }

    package enum Kind: Sendable {
        case inner, left

        package var sql: StaticString { self == .inner ? "JOIN" : "LEFT JOIN" }
    }
    package var kind: Kind
    package var table: TableName
    package var alias: String
    package var on: SQLTerm
}

/// A SELECT statement over catalog tables.
package struct SelectQuery: Sendable {
    package var items: [SelectColumn]
    package var table: TableName
    package var alias: String
    package var joins: [JoinClause] = []
    package var predicate: SQLTerm?
    /// `GROUP BY` the first this many items, by position (`GROUP BY 1, 2`; `$apply`'s groupby); 0 for
    /// none. By position, because an expression written twice would bind its values twice, and
    /// PostgreSQL does not see `substr(x, $1)` and `substr(x, $3)` as the same expression.
    package var groupedItems = 0
    package var orderBy: [OrderTerm] = []
    package var limit: Int?
    package var offset: Int?
    package var distinct = false

    package init(items: [SelectColumn], from table: TableName, alias: String) {
        self.items = items
        self.table = table
        self.alias = alias
    }

    /// Adds a condition with AND.
    package mutating func filter(_ condition: SQLTerm) {
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
