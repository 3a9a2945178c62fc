import StrataCore

/// A client query that passed the checker: every name resolved against the catalog, every table
/// readable by the caller, every parameter given, every operand typed.
///
/// It is the only input of the emitter (``emit(for:tableSource:)``), so nothing the client wrote
/// reaches a database except as a bound value.
public struct SQLCheckedStatement: Sendable, Hashable {
    /// The tables the query reads, in `FROM`/`JOIN` order, with the aliases the emitted SQL uses.
    public let tables: [SQLTableReference]
    /// The result columns, in order, after `*` and `t.*` are expanded.
    public let columns: [SQLResultColumn]
    /// The names of the parameters the query uses, in order of first use.
    public let parameters: [String]
    /// The `LIMIT` value, when there is one.
    public let limit: Int64?
    /// The `OFFSET` value, when there is one.
    public let offset: Int64?

    let distinct: Bool
    /// One expression per result column.
    let selections: [SQLTypedExpression]
    let joins: [CheckedJoin]
    let filter: SQLTypedExpression?
    let groupBy: [SQLTypedExpression]
    let having: SQLTypedExpression?
    let orderBy: [CheckedOrder]

    struct CheckedJoin: Sendable, Hashable {
        var kind: SQLJoin.Kind
        var condition: SQLTypedExpression
    }

    struct CheckedOrder: Sendable, Hashable {
        enum Key: Sendable, Hashable {
            /// The 1-based position of a result column, emitted as that number.
            case position(Int)
            case expression(SQLTypedExpression)
        }

        var key: Key
        var descending: Bool
        /// Where NULLs go; nil when the key is never null, so the placement cannot change the
        /// result and leaving it out lets PostgreSQL use an index on the column.
        var nulls: SQLOrderItem.Nulls?
    }

    init(
        tables: [SQLTableReference], columns: [SQLResultColumn], parameters: [String], limit: Int64?, offset: Int64?,
        distinct: Bool, selections: [SQLTypedExpression], joins: [CheckedJoin], filter: SQLTypedExpression?,
        groupBy: [SQLTypedExpression], having: SQLTypedExpression?, orderBy: [CheckedOrder]
    ) {
        self.tables = tables
        self.columns = columns
        self.parameters = parameters
        self.limit = limit
        self.offset = offset
        self.distinct = distinct
        self.selections = selections
        self.joins = joins
        self.filter = filter
        self.groupBy = groupBy
        self.having = having
        self.orderBy = orderBy
    }
}

/// A catalog table as one query uses it.
public struct SQLTableReference: Sendable, Hashable {
    /// The table's name in the catalog.
    public let table: String
    /// The alias the emitted SQL gives it: `t1`, `t2`, … in `FROM`/`JOIN` order. Generated, so no
    /// text from the client appears among the emitted identifiers.
    public let alias: String
    /// The name the client's query uses for it: its alias, or the table name as written.
    public let clientName: String
    /// The table's name in the database, which the emitted SQL uses.
    public let storedName: String
    /// Database names of the columns whose names differ from the catalog's, by catalog name.
    let storedColumns: [String: String]

    public init(table: String, alias: String, clientName: String, storedName: String? = nil, storedColumns: [(String, String)] = []) {
        self.table = table
        self.alias = alias
        self.clientName = clientName
        self.storedName = storedName ?? table
        self.storedColumns = Dictionary(storedColumns, uniquingKeysWith: { a, _ in a })
    }

    /// The database name of one of the table's columns, given its catalog name.
    public func storedColumn(_ name: String) -> String {
        storedColumns.isEmpty ? name : storedColumns[name] ?? name
    }
}

/// One column of the query's result.
public struct SQLResultColumn: Sendable, Hashable {
    /// The column alias, else the column's catalog name for a plain column reference, else
    /// `column` followed by its 1-based position (`column2`). Names are unique within a result.
    public let name: String
    /// The EDM type by ``SQLTypeRules``; `Edm.String` when only `NULL` is known.
    public let type: EDMPrimitiveType
    /// The catalog table and column when the result column is a plain column reference, so the
    /// server can describe it as that field (key, size, read-only).
    public let source: Source?

    /// A catalog column a result column comes from.
    public struct Source: Sendable, Hashable {
        public let table: String
        public let column: String

        public init(table: String, column: String) {
            self.table = table
            self.column = column
        }
    }

    public init(name: String, type: EDMPrimitiveType, source: Source?) {
        self.name = name
        self.type = type
        self.source = source
    }
}
