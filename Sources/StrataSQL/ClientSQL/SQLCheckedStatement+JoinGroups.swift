import StrataCore

extension SQLCheckedStatement {
    /// The query's tables (positions in ``tables``) grouped by the conditions that join them.
    ///
    /// Tables are in one group when an equality whose sides name columns of different tables
    /// (`a.x = b.y`, `j.id = i.id + 10`, `lower(a.x) = lower(b.y)`), one of the conditions `AND`ed
    /// together in a `JOIN … ON` or in `WHERE`, links them, directly or through other tables of
    /// the group: the database can match such rows by key, index or hash instead of trying every pair. Different groups are combined row
    /// by row with each other, a cross product: the server refuses a query whose groups multiply
    /// to more rows than it allows, before it runs (`JOIN Person b ON 1=1` three times over a
    /// table of 300 rows is 8.1 billion combinations). One group per table that nothing joins;
    /// a query of one table is one group.
    public var joinGroups: [[Int]] {
        var parent = Array(tables.indices)
        func root(_ table: Int) -> Int {
            var table = table
            while parent[table] != table {
                parent[table] = parent[parent[table]]
                table = parent[table]
            }
            return table
        }
        let conditions = joins.map(\.condition) + (filter.map { [$0] } ?? [])
        for condition in conditions {
            for conjunct in condition.conjuncts {
                guard case .comparison(.equal, let left, let right) = conjunct.node else { continue }
                let (a, b) = (left.columnSources, right.columnSources)
                guard let first = a.first, !b.isEmpty, a.isDisjoint(with: b) else { continue }
                for table in a.union(b) { parent[root(table)] = root(first) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for table in tables.indices { groups[root(table), default: []].append(table) }
        return groups.values.sorted { $0[0] < $1[0] }
    }
}

extension SQLTypedExpression {
    /// The conditions of an `AND`, nested ones flattened; the expression itself when it is no `AND`.
    var conjuncts: [SQLTypedExpression] {
        guard case .and(let parts) = node else { return [self] }
        return parts.flatMap(\.conjuncts)
    }

    /// The positions of the tables whose columns the expression reads.
    var columnSources: Set<Int> {
        if case .column(let source, _) = node { return [source] }
        return children.reduce(into: []) { $0.formUnion($1.columnSources) }
    }
}
