import StrataCore

extension Replica {
    /// The rows of a table whose fields equal `matching` (a null matches null), ordered by a field
    /// and then by key (or by key), at most `limit` — the typed way for the common query, answered
    /// by one indexed SQL statement (declare the index with ``ReplicaTable/indexes``).
    ///
    /// ```swift
    /// let fords = try await replica.rows("Car", matching: ["make": .string("Ford")], orderBy: "year", descending: true, limit: 20)
    /// ```
    /// - Throws: ``ReplicaError/Kind/unknownName`` for a field the table does not have,
    ///   ``ReplicaError/Kind/invalidChange`` for a value that does not fit its field,
    ///   ``ReplicaError/Kind/invalidQuery`` for a negative limit.
    public func rows(_ table: String, matching: DataTableValues, orderBy: String? = nil, descending: Bool = false,
                     limit: Int? = nil) throws(ReplicaError) -> [ReplicaRow] {
        let stored = try self.table(table)
        guard stored.isDownloaded else { return [] }
        var conditions: [(field: Int, value: ODataValue)] = []
        for (name, value) in matching.sorted(by: { $0.key < $1.key }) {
            let position = try self.position(of: name, in: stored)
            guard let typed = value.isNull ? ODataValue.null : value.converted(to: stored.fields[position].type) else {
                throw ReplicaError(.invalidChange, "\(name) of \(table) takes \(stored.fields[position].type.rawValue), not \(value)")
            }
            conditions.append((position, typed))
        }
        var order: [(field: Int, descending: Bool)] = []
        if let orderBy { order.append((try position(of: orderBy, in: stored), descending)) }
        if let limit, limit < 0 { throw ReplicaError(.invalidQuery, "a limit counts rows: \(limit) is below 0") }
        return try database.rows(of: stored, matching: conditions, orderBy: order, limit: limit).map { replicaRow(stored, $0) }
    }

    /// Runs one read-only SQL statement (SQLite's dialect) over the local tables — each replicated
    /// table under its own name, with the rows as the app sees them, local changes included — with
    /// `arguments` bound to its `?` parameters in order.
    ///
    /// Joins, grouping and SQLite's functions are there; writing is not (edit with
    /// ``insert(into:_:)``, ``update(_:key:_:)`` and ``delete(from:key:)``, which the sync sends),
    /// nor are the replica's own bookkeeping tables. Values are never written into the text: pass
    /// them as arguments.
    /// - Throws: ``ReplicaError/Kind/invalidQuery`` for SQL that does not parse, writes, reads
    ///   another table, is more than one statement, or has another number of parameters.
    public func query(_ sql: String, _ arguments: [ODataValue] = []) throws(ReplicaError) -> ReplicaQueryResult {
        guard !closed else { throw ReplicaError(.closed, "the replica was closed; open it again") }
        let readable = Set(state.order.filter { state.tables[$0]?.isDownloaded == true })
        return try database.query(sql, arguments: arguments, tables: readable)
    }

    private func position(of field: String, in table: ReplicaState.Table) throws(ReplicaError) -> Int {
        guard let position = table.fields.firstIndex(where: { $0.name == field }) else {
            throw ReplicaError(.unknownName, "\(table.definition.name) has no field '\(field)'; its fields are \(table.fields.map(\.name).joined(separator: ", "))")
        }
        return position
    }
}
