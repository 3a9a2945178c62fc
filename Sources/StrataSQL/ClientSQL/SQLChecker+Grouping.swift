import StrataCore

/// `GROUP BY`, `ORDER BY` and the rule that keeps aggregated queries meaningful on PostgreSQL as on SQLite.
extension SQLCheckContext {
    /// A `GROUP BY` entry: a position in the select list (`GROUP BY 1`), an input column, a result
    /// column's alias when no input column has that name (PostgreSQL's rule), or an expression.
    mutating func checkGroupKey(
        _ expression: SQLExpression, columns: [SQLResultColumn], selections: [SQLTypedExpression]
    ) throws(ODataError) -> SQLTypedExpression {
        let scope = Scope(clause: .groupBy, visibleSources: sources.count)
        if let position = try resultPosition(expression, columns: columns) {
            let key = selections[position - 1]
            if key.containsAggregate {
                throw SQLRefusal.notAllowed("GROUP BY \(position) refers to an aggregate", at: expression.location, hint: "group by plain columns or expressions")
            }
            return key
        }
        if case .column(let name) = expression.kind, name.qualifier == nil, case .missing = lookupColumn(name.name, scope),
           let index = outputColumn(named: name.name, columns: columns) {
            let key = selections[index]
            if key.containsAggregate {
                throw SQLRefusal.notAllowed("GROUP BY \(name.name) refers to an aggregate", at: expression.location, hint: "group by plain columns or expressions")
            }
            return key
        }
        return try check(expression, scope)
    }

    /// An `ORDER BY` entry: a result position, a result column's name (which wins over an input
    /// column, as SQL says), or an expression. A `DISTINCT` query may only order by its results.
    mutating func checkOrderItem(
        _ item: SQLOrderItem, distinct: Bool, columns: [SQLResultColumn], selections: [SQLTypedExpression]
    ) throws(ODataError) -> SQLCheckedStatement.CheckedOrder {
        let nulls = item.nulls ?? (item.descending ? .last : .first)
        func order(_ key: SQLCheckedStatement.CheckedOrder.Key) -> SQLCheckedStatement.CheckedOrder {
            let expression: SQLTypedExpression
            switch key {
            case .position(let position): expression = selections[position - 1]
            case .expression(let typed): expression = typed
            }
            // Where NULLs go is said explicitly so both databases agree, but only where a NULL can occur.
            return .init(key: key, descending: item.descending, nulls: canBeNull(expression) ? nulls : nil)
        }
        if let position = try resultPosition(item.expression, columns: columns) { return order(.position(position)) }
        if case .column(let name) = item.expression.kind, name.qualifier == nil, let index = outputColumn(named: name.name, columns: columns) {
            return order(.position(index + 1))
        }
        let typed = try check(item.expression, Scope(clause: .orderBy, visibleSources: sources.count))
        if let index = selections.firstIndex(of: typed) { return order(.position(index + 1)) }
        if distinct {
            throw SQLRefusal.notAllowed("ORDER BY of a SELECT DISTINCT must use result columns", at: item.expression.location,
                                        hint: "add the expression to the select list or order by a result column")
        }
        if let type = typed.type, !SQLTypeRules.isOrderable(type), type != .boolean {
            throw SQLRefusal.type("ORDER BY cannot order \(type.qualifiedName) values", at: item.expression.location)
        }
        return order(.expression(typed))
    }

    /// Whether an order key can be null in some result row. Only a bare column is looked at: a key
    /// or NOT NULL column of a table that is not the optional side of a `LEFT JOIN` never is. Any
    /// other expression counts as nullable, which costs at most an index on PostgreSQL.
    private func canBeNull(_ expression: SQLTypedExpression) -> Bool {
        guard case .column(let index, let name) = expression.node else { return true }
        let source = sources[index]
        return source.outerJoined || source.table.columns.first { $0.name == name }?.isNullable ?? true
    }

    /// The 1-based position an integer literal names in `GROUP BY 2` or `ORDER BY 2`.
    private func resultPosition(_ expression: SQLExpression, columns: [SQLResultColumn]) throws(ODataError) -> Int? {
        guard case .literal(let value) = expression.kind, let number = value.integerValue else { return nil }
        guard number >= 1, number <= Int64(columns.count) else {
            throw SQLRefusal.syntax("position \(number) is not a result column", at: expression.location,
                                    hint: "the query returns \(columns.count) column\(columns.count == 1 ? "" : "s")")
        }
        return Int(number)
    }

    /// The index of the result column with this name, by the catalog's matching rule.
    private func outputColumn(named name: SQLIdentifier, columns: [SQLResultColumn]) -> Int? {
        if let index = columns.firstIndex(where: { $0.name == name.name }) { return index }
        guard !name.isQuoted else { return nil }
        let lowered = name.name.lowercased()
        let matches = columns.indices.filter { columns[$0].name.lowercased() == lowered }
        return matches.count == 1 ? matches[0] : nil
    }

    /// In an aggregated query (one with `GROUP BY`, `HAVING` or an aggregate in its results or
    /// order), every column outside an aggregate must be part of a grouped expression. SQLite would
    /// return an arbitrary row's value; PostgreSQL refuses; the dialect refuses on both.
    func checkGrouping(
        selections: [SQLTypedExpression], groupBy: [SQLTypedExpression], having: SQLTypedExpression?,
        orderBy: [SQLCheckedStatement.CheckedOrder], hasGroupBy: Bool
    ) throws(ODataError) {
        var expressions = selections
        if let having { expressions.append(having) }
        for item in orderBy {
            if case .expression(let e) = item.key { expressions.append(e) }
        }
        guard hasGroupBy || having != nil || expressions.contains(where: \.containsAggregate) else { return }
        let keys = Set(groupBy)
        for expression in expressions {
            if let column = ungroupedColumn(in: expression, keys: keys), case .column(let index, let name) = column.node {
                throw SQLRefusal.notAllowed("the column \(display(source: index, column: name)) must be in GROUP BY or inside an aggregate function",
                                            at: column.location)
            }
        }
    }

    private func ungroupedColumn(in expression: SQLTypedExpression, keys: Set<SQLTypedExpression>) -> SQLTypedExpression? {
        if keys.contains(expression) { return nil }
        switch expression.node {
        case .column: return expression
        case .countAll: return nil
        case .function(let function, _, _) where function.isAggregate: return nil
        default:
            for child in expression.children {
                if let found = ungroupedColumn(in: child, keys: keys) { return found }
            }
            return nil
        }
    }
}
