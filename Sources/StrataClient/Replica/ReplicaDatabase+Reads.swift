import Foundation
import StrataCore

extension ReplicaDatabase {
    /// Every row of a downloaded table as the app sees it, in key order.
    func rows(of table: ReplicaState.Table) throws(ReplicaError) -> [[ODataValue]] {
        let sql = try statements(of: table)
        return try collect(sql.selectAll, arguments: [], fields: sql.fields)
    }

    /// One row as the app sees it; nil when there is none.
    func row(of table: ReplicaState.Table, key: RowKey) throws(ReplicaError) -> [ODataValue]? {
        let sql = try statements(of: table)
        do {
            return try read(sql.select, key: key, fields: sql.fields)
        } catch {
            throw replicaError(error)
        }
    }

    func count(of table: ReplicaState.Table) throws(ReplicaError) -> Int {
        let rows = try collect("SELECT count(*) FROM \(SQLiteIdentifier(table.definition.name))", arguments: [], fields: [DataTableField(name: "count", type: .int64)])
        return Int(rows.first?.first?.integerValue ?? 0)
    }

    /// How many rows the server has in the table, as last pulled: the visible rows, less those only
    /// local changes made visible, plus the server's rows that local changes hide.
    func serverCount(of table: ReplicaState.Table, state: ReplicaState) throws(ReplicaError) -> Int {
        guard table.isDownloaded else { return 0 }
        var count = try self.count(of: table)
        let sql = try statements(of: table)
        do {
            for key in state.pendingRows(of: table.definition.name) {
                if try read(sql.select, key: key, fields: sql.fields) != nil { count -= 1 }
                if try read(sql.selectServer, key: key, fields: sql.fields) != nil { count += 1 }
            }
        } catch {
            throw replicaError(error)
        }
        return count
    }

    /// The rows whose fields equal `matching` (a null matches null), ordered by `orderBy` and then
    /// the key, at most `limit`: one statement, which the table's indexes serve.
    func rows(of table: ReplicaState.Table, matching: [(field: Int, value: ODataValue)], orderBy: [(field: Int, descending: Bool)],
              limit: Int?) throws(ReplicaError) -> [[ODataValue]] {
        let sql = try statements(of: table)
        let names = table.fields.map { SQLiteIdentifier($0.name).quoted }
        var text = "SELECT \(sql.columns) FROM \(SQLiteIdentifier(table.definition.name))"
        if !matching.isEmpty { text += " WHERE " + matching.map { "\(names[$0.field]) IS ?" }.joined(separator: " AND ") }
        let order = orderBy.map { "\(names[$0.field])\($0.descending ? " DESC" : "")" } + table.keyPositions.map { names[$0] }
        text += " ORDER BY " + order.joined(separator: ", ")
        if limit != nil { text += " LIMIT ?" }
        return try collect(text, arguments: matching.map(\.value) + (limit.map { [.int64(Int64($0))] } ?? []), fields: sql.fields)
    }

    /// Runs one read-only statement of the app's (``Replica/query(_:_:)``): it may read the
    /// replicated tables only — not Strata's own, and nothing may be written — and its values are
    /// bound from `arguments`.
    func query(_ text: String, arguments: [ODataValue], tables: Set<String>) throws(ReplicaError) -> ReplicaQueryResult {
        let authorizer = SQLiteAuthorizer { tables.contains($0) }
        let statement: SQLiteStatement
        do {
            statement = try connection.prepare(text, authorizer: authorizer)
        } catch {
            throw ReplicaError(.invalidQuery, "the query does not run: \(error.message)")
        }
        defer { statement.finalize() }
        guard statement.remainder.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";"))).isEmpty else {
            throw ReplicaError(.invalidQuery, "give one statement at a time; this follows the first: \(statement.remainder.prefix(60))")
        }
        guard statement.isReadOnly else { throw ReplicaError(.invalidQuery, "a query only reads; it cannot change the replica") }
        guard statement.parameterCount == arguments.count else {
            throw ReplicaError(.invalidQuery, "the query has \(statement.parameterCount) parameter(s) (?) and was given \(arguments.count) value(s)")
        }
        let columns = (0 ..< statement.columnCount).map { statement.columnName($0) }
        let types = (0 ..< statement.columnCount).map { statement.declaredType($0).flatMap(SQLiteColumnType.edmType(declared:)) }
        var rows: [[ODataValue]] = []
        do {
            try statement.bind(arguments)
            while try statement.step() {
                rows.append(try (0 ..< columns.count).map { index throws(SQLiteError) in try statement.value(index, as: types[index]) })
            }
        } catch {
            throw ReplicaError(.invalidQuery, "the query failed: \(error.message)")
        }
        return ReplicaQueryResult(columns: columns, types: types, rows: rows, tables: authorizer.tablesRead)
    }

    // MARK: Helpers

    func statements(of table: ReplicaState.Table) throws(ReplicaError) -> ReplicaTableSQL {
        guard let sql = statements[table.definition.name] else {
            throw ReplicaError(.invalidChange, "\(table.definition.name) has not been downloaded yet; sync once first")
        }
        return sql
    }

    private func collect(_ text: String, arguments: [ODataValue], fields: [DataTableField]) throws(ReplicaError) -> [[ODataValue]] {
        do {
            let statement = try connection.prepared(text)
            defer { statement.reset() }
            try statement.bind(arguments)
            var rows: [[ODataValue]] = []
            while try statement.step() {
                rows.append(try (0 ..< fields.count).map { index throws(SQLiteError) in try statement.value(index, as: fields[index].type) })
            }
            return rows
        } catch {
            throw replicaError(error)
        }
    }
}
