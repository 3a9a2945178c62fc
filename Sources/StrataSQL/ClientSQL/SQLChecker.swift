import StrataCore

/// Checks a parsed query against a catalog, the caller's read rights and the request's parameters,
/// producing a ``SQLCheckedStatement`` or refusing with a located 400 (403 for a table the caller
/// may not read).
///
/// Beyond resolving names and types (``SQLTypeRules``), the checker enforces the rules on which
/// SQLite is lax and PostgreSQL strict, so a query means the same on both: every column outside an
/// aggregate in an aggregated query must be grouped; `ORDER BY` of a `DISTINCT` query must name
/// result columns; `JOIN … ON` may only use tables joined so far; result column names are unique.
///
/// Parameters are matched by exact name. A parameter the query uses but the request does not give
/// is refused; parameters given but not used are ignored, so a client may send one parameter set
/// for several queries.
public struct SQLChecker: Sendable {
    /// The tables queries may name.
    public let catalog: SQLCatalog

    public init(catalog: SQLCatalog) {
        self.catalog = catalog
    }

    /// Checks a parsed statement.
    /// - Parameters:
    ///   - parameters: the values of `:name` parameters, by name.
    ///   - canRead: whether the caller may read the catalog table with this name; asked once per
    ///     table reference. A table the caller may not read is refused with 403.
    public func check(
        _ statement: SQLSelectStatement,
        parameters: [String: ODataValue] = [:],
        canRead: (String) -> Bool = { _ in true }
    ) throws(ODataError) -> SQLCheckedStatement {
        var context = SQLCheckContext(catalog: catalog, parameterValues: parameters)
        return try context.check(statement, canRead: canRead)
    }
}

/// The state of one check: the tables in scope and the parameters used so far.
struct SQLCheckContext {
    let catalog: SQLCatalog
    let parameterValues: [String: ODataValue]
    var usedParameters: [String] = []
    var sources: [Source] = []

    /// A table in `FROM`/`JOIN` with the name the query uses for it.
    struct Source {
        var table: SQLCatalog.Table
        var reference: SQLTableReference
        /// The alias, or the table's catalog name matched as if written unquoted.
        var qualifier: SQLIdentifier
        /// Without an alias, the table's database name where it differs from the catalog's: a
        /// qualifier too (`"Order Details"."Unit Price"`).
        var storedQualifier: String?
        /// Whether the table is the optional side of a `LEFT JOIN`: a row without a match has NULL
        /// in every column of it, NOT NULL columns included. Only the joined table can be missing;
        /// the dialect has no RIGHT or FULL join that could make earlier tables so.
        var outerJoined: Bool
    }

    /// Where an expression sits, which decides what it may contain.
    struct Scope {
        enum Clause: String {
            case on = "JOIN … ON"
            case filter = "WHERE"
            case groupBy = "GROUP BY"
            case having = "HAVING"
            case select = "the select list"
            case orderBy = "ORDER BY"

            var allowsAggregates: Bool { self == .having || self == .select || self == .orderBy }
        }

        var clause: Clause
        /// How many of the sources (in order) the expression may name.
        var visibleSources: Int
        var insideAggregate = false
    }

    init(catalog: SQLCatalog, parameterValues: [String: ODataValue]) {
        self.catalog = catalog
        self.parameterValues = parameterValues
    }

    mutating func check(_ statement: SQLSelectStatement, canRead: (String) -> Bool) throws(ODataError) -> SQLCheckedStatement {
        var joins: [SQLCheckedStatement.CheckedJoin] = []
        if let from = statement.from { try addSource(from, outerJoined: false, canRead: canRead) }
        for join in statement.joins { try addSource(join.table, outerJoined: join.kind == .left, canRead: canRead) }
        for (index, join) in statement.joins.enumerated() {
            // The ON of the n-th join sees the FROM table and the joins up to and including its own.
            let scope = Scope(clause: .on, visibleSources: index + 2)
            let condition = try requireCondition(try check(join.condition, scope), in: .on)
            joins.append(.init(kind: join.kind, condition: condition))
        }
        let all = sources.count
        let (columns, selections) = try checkSelectList(statement.items)
        let filter = try statement.filter.map { (e: SQLExpression) throws(ODataError) in
            try requireCondition(try check(e, Scope(clause: .filter, visibleSources: all)), in: .filter)
        }
        let groupBy = try statement.groupBy.map { (e: SQLExpression) throws(ODataError) in
            try checkGroupKey(e, columns: columns, selections: selections)
        }
        let having = try statement.having.map { (e: SQLExpression) throws(ODataError) in
            try requireCondition(try check(e, Scope(clause: .having, visibleSources: all)), in: .having)
        }
        // Without GROUP BY, only an aggregate in the select list makes the query one group; SQLite
        // refuses HAVING otherwise, where PostgreSQL would answer: refused alike on both.
        if let having, statement.groupBy.isEmpty, !selections.contains(where: \.containsAggregate) {
            throw SQLRefusal.notAllowed("HAVING without GROUP BY needs an aggregate in the select list", at: having.location,
                                        hint: "add GROUP BY, select an aggregate such as COUNT(*), or put the condition in WHERE")
        }
        let orderBy = try statement.orderBy.map { (item: SQLOrderItem) throws(ODataError) in
            try checkOrderItem(item, distinct: statement.distinct, columns: columns, selections: selections)
        }
        try checkGrouping(selections: selections, groupBy: groupBy, having: having, orderBy: orderBy, hasGroupBy: !statement.groupBy.isEmpty)
        let limit = try statement.limit.map { (e: SQLExpression) throws(ODataError) in try rowCount(e, clause: "LIMIT") }
        let offset = try statement.offset.map { (e: SQLExpression) throws(ODataError) in try rowCount(e, clause: "OFFSET") }
        return SQLCheckedStatement(
            tables: sources.map(\.reference), columns: columns, parameters: usedParameters, limit: limit, offset: offset,
            distinct: statement.distinct, selections: selections, joins: joins, filter: filter,
            groupBy: groupBy, having: having, orderBy: orderBy)
    }

    // MARK: Tables

    private mutating func addSource(_ name: SQLTableName, outerJoined: Bool, canRead: (String) -> Bool) throws(ODataError) {
        let table: SQLCatalog.Table
        switch catalog.resolveTable(name.name) {
        case .found(let found): table = found
        case .ambiguous(let candidates):
            throw SQLRefusal.unknownName("the table name \(name.name) is ambiguous", at: name.name.location,
                                         hint: "quote the exact name: " + candidates.map { "\"\($0.name)\"" }.joined(separator: " or "))
        case .missing:
            throw unknownTable(name.name, canRead: canRead)
        }
        guard canRead(table.name) else { throw SQLRefusal.forbidden(table: table.name, at: name.name.location) }
        let qualifier = name.alias ?? SQLIdentifier(table.name, quoted: false, at: name.name.location)
        if let clash = sources.first(where: { $0.qualifier.name.lowercased() == qualifier.name.lowercased() }) {
            throw SQLRefusal.syntax("the name \(qualifier.name) is used for two tables (also at \(clash.qualifier.location))",
                                    at: qualifier.location, hint: "give each table its own alias, as in JOIN \(table.name) AS x2")
        }
        let reference = SQLTableReference(table: table.name, alias: "t\(sources.count + 1)", clientName: qualifier.name,
                                          storedName: table.storedName,
                                          storedColumns: table.columns.filter { $0.storedName != $0.name }.map { ($0.name, $0.storedName) })
        let storedQualifier = name.alias == nil && table.storedName != table.name ? table.storedName : nil
        sources.append(Source(table: table, reference: reference, qualifier: qualifier, storedQualifier: storedQualifier, outerJoined: outerJoined))
    }

    private func unknownTable(_ name: SQLIdentifier, canRead: (String) -> Bool) -> ODataError {
        let lowered = name.name.lowercased()
        if lowered.hasPrefix("sqlite_") || lowered.hasPrefix("pg_") || lowered == "information_schema" {
            return SQLRefusal.notAllowed("the system catalog \(name.name) is not available", at: name.location,
                                         hint: "queries read the service's tables; $metadata describes them")
        }
        let readable = catalog.tables.map(\.name).filter(canRead).sorted()
        return SQLRefusal.unknownName("unknown table \(name)", at: name.location,
                                      hint: readable.isEmpty ? nil : "tables are " + readable.joined(separator: ", "))
    }

    // MARK: Select list

    private mutating func checkSelectList(_ items: [SQLSelectItem]) throws(ODataError) -> ([SQLResultColumn], [SQLTypedExpression]) {
        var columns: [SQLResultColumn] = []
        var selections: [SQLTypedExpression] = []
        var firstLocation: [String: SQLSourceLocation] = [:]
        func add(_ column: SQLResultColumn, _ expression: SQLTypedExpression) throws(ODataError) {
            if let earlier = firstLocation[column.name] {
                throw SQLRefusal.syntax("the result column name \(column.name) appears twice (first at \(earlier))", at: expression.location,
                                        hint: "give one of them another name with AS")
            }
            firstLocation[column.name] = expression.location
            columns.append(column)
            selections.append(expression)
        }
        let scope = Scope(clause: .select, visibleSources: sources.count)
        for item in items {
            switch item {
            case .allColumns(let location):
                guard !sources.isEmpty else { throw SQLRefusal.syntax("SELECT * needs FROM and a table", at: location) }
                for index in sources.indices {
                    for (column, expression) in expand(index, at: location) { try add(column, expression) }
                }
            case .allColumnsOf(let qualifier):
                let index = try resolveQualifier(qualifier, scope)
                for (column, expression) in expand(index, at: qualifier.location) { try add(column, expression) }
            case .expression(let raw, let alias):
                let expression = try check(raw, scope)
                var source: SQLResultColumn.Source?
                var name = alias?.name ?? "column\(columns.count + 1)"
                if case .column(let index, let columnName) = expression.node {
                    source = .init(table: sources[index].table.name, column: columnName)
                    if alias == nil { name = columnName }
                }
                try add(SQLResultColumn(name: name, type: expression.type ?? .string, source: source), expression)
            }
        }
        return (columns, selections)
    }

    private func expand(_ index: Int, at location: SQLSourceLocation) -> [(SQLResultColumn, SQLTypedExpression)] {
        let table = sources[index].table
        return table.columns.map { column in
            (SQLResultColumn(name: column.name, type: column.type, source: .init(table: table.name, column: column.name)),
             SQLTypedExpression(.column(source: index, name: column.name), type: column.type, at: location))
        }
    }

    // MARK: LIMIT and OFFSET

    private mutating func rowCount(_ expression: SQLExpression, clause: String) throws(ODataError) -> Int64 {
        let typed = try check(expression, Scope(clause: .filter, visibleSources: 0))
        guard let count = typed.constantValue?.integerValue, count >= 0 else {
            throw SQLRefusal.type("\(clause) needs a whole number of at least 0, not \(typed.constantValue.map(ODataLiteral.format) ?? "this")",
                                  at: expression.location)
        }
        return count
    }
}
