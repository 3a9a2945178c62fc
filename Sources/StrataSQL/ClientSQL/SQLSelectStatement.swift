import StrataCore

/// A parsed `SELECT` of the client dialect, before names are resolved against a catalog.
public struct SQLSelectStatement: Sendable, Hashable {
    public var distinct: Bool
    public var items: [SQLSelectItem]
    /// The first table of `FROM`; nil for a query without `FROM` (`SELECT 1 + 1`).
    public var from: SQLTableName?
    public var joins: [SQLJoin]
    /// The `WHERE` condition.
    public var filter: SQLExpression?
    public var groupBy: [SQLExpression]
    public var having: SQLExpression?
    public var orderBy: [SQLOrderItem]
    /// `LIMIT n`: an integer literal or a parameter.
    public var limit: SQLExpression?
    /// `OFFSET m`: an integer literal or a parameter; only after `LIMIT`.
    public var offset: SQLExpression?

    public init(
        distinct: Bool = false, items: [SQLSelectItem], from: SQLTableName? = nil, joins: [SQLJoin] = [],
        filter: SQLExpression? = nil, groupBy: [SQLExpression] = [], having: SQLExpression? = nil,
        orderBy: [SQLOrderItem] = [], limit: SQLExpression? = nil, offset: SQLExpression? = nil
    ) {
        self.distinct = distinct
        self.items = items
        self.from = from
        self.joins = joins
        self.filter = filter
        self.groupBy = groupBy
        self.having = having
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
    }
}

/// One entry of the select list.
public enum SQLSelectItem: Sendable, Hashable {
    /// `*`: every column of every table, in `FROM` order.
    case allColumns(at: SQLSourceLocation)
    /// `t.*`: every column of one table.
    case allColumnsOf(SQLIdentifier)
    /// `expression [AS alias]`
    case expression(SQLExpression, alias: SQLIdentifier?)
}

/// A catalog table in `FROM` or `JOIN`, with its optional alias.
public struct SQLTableName: Sendable, Hashable {
    public var name: SQLIdentifier
    public var alias: SQLIdentifier?

    public init(name: SQLIdentifier, alias: SQLIdentifier?) {
        self.name = name
        self.alias = alias
    }
}

/// `[INNER] JOIN table ON condition` or `LEFT [OUTER] JOIN table ON condition`.
public struct SQLJoin: Sendable, Hashable {
    /// The join kinds of the dialect; the raw value is the SQL that introduces them.
    public enum Kind: String, Sendable, Hashable {
        case inner = "INNER JOIN"
        case left = "LEFT JOIN"
    }

    public var kind: Kind
    public var table: SQLTableName
    public var condition: SQLExpression

    public init(kind: Kind, table: SQLTableName, condition: SQLExpression) {
        self.kind = kind
        self.table = table
        self.condition = condition
    }
}

/// One `ORDER BY` entry.
public struct SQLOrderItem: Sendable, Hashable {
    /// An explicit placement of NULLs; the raw value is the SQL for it.
    public enum Nulls: String, Sendable, Hashable {
        case first = "NULLS FIRST"
        case last = "NULLS LAST"
    }

    public var expression: SQLExpression
    public var descending: Bool
    /// Where NULLs go when the client says so; otherwise NULLs sort as the smallest values
    /// (first ascending, last descending) on both databases.
    public var nulls: Nulls?

    public init(expression: SQLExpression, descending: Bool, nulls: Nulls?) {
        self.expression = expression
        self.descending = descending
        self.nulls = nulls
    }
}
