import StrataCore

extension ReplicaDatabase {
    /// Applies the mutations of one step in one transaction, and to `state` once it committed:
    /// either all of the step is in the database and in memory, or none of it (a full disk, a
    /// crash). Answers the rows whose visible state may have changed (a table with no keys: all
    /// of it).
    ///
    /// With `initializing`, the same transaction first writes Strata's tables and `state`'s
    /// definitions: a new replica, or one converted from the old format, is there whole or not at all.
    @discardableResult
    func apply(_ mutations: [ReplicaMutation], to state: inout ReplicaState, initializing: Bool = false) throws(ReplicaError) -> [String: Set<RowKey>?] {
        for case .replace(let name, let fields, _, _) in mutations {
            if let definition = state.tables[name]?.definition { try Self.check(indexes: definition, fields: fields) }
        }
        var next = state
        let savedStatements = statements
        var keys: [String: Set<RowKey>] = [:]
        var whole: Set<String> = []
        do {
            try connection.transaction { () throws(SQLiteError) in
                if initializing {
                    try createSchema()
                    for (position, name) in next.order.enumerated() { if let table = next.tables[name] { try writeDefinition(table, position: position) } }
                    try writeCounters(next)
                }
                for mutation in mutations { try apply(mutation, to: &next, keys: &keys, whole: &whole) }
            }
        } catch {
            statements = savedStatements
            throw replicaError(error)
        }
        state = next
        var touched: [String: Set<RowKey>?] = [:]
        for (table, changed) in keys where !changed.isEmpty { touched[table] = .some(changed) }
        for table in whole { touched[table] = .some(nil) }
        return touched
    }

    /// A table's declared indexes must name its fields.
    static func check(indexes definition: ReplicaTable, fields: [DataTableField]) throws(ReplicaError) {
        let names = Set(fields.map(\.name))
        for index in definition.indexes {
            guard !index.isEmpty else { throw ReplicaError(.invalidChange, "an index of \(definition.name) names no field") }
            if let unknown = index.first(where: { !names.contains($0) }) {
                throw ReplicaError(.unknownName, "the index \(index) of \(definition.name) names '\(unknown)', which is not one of its fields (\(fields.map(\.name).joined(separator: ", "))); change the ReplicaTable's indexes")
            }
        }
    }

    private func apply(_ mutation: ReplicaMutation, to state: inout ReplicaState, keys: inout [String: Set<RowKey>],
                       whole: inout Set<String>) throws(SQLiteError) {
        switch mutation {
        case .putPending(let change):
            try putOutbox(change)
            guard let newRow = state.rowID(of: change.change), statements[newRow.table] != nil else {
                state.pending[change.id] = change
                return
            }
            if let old = state.pending[change.id], let oldRow = state.rowID(of: old.change), oldRow != newRow {
                let base = try serverRow(oldRow, state)
                state.pending[change.id] = nil
                state.removePending(change.id, from: oldRow)
                try settle(oldRow, base: base, state)
                keys[oldRow.table, default: []].insert(oldRow.key)
            }
            let base = try serverRow(newRow, state)
            state.pending[change.id] = change
            state.addPending(change.id, to: newRow)
            try settle(newRow, base: base, state)
            keys[newRow.table, default: []].insert(newRow.key)
        case .dropPending(let id):
            guard let old = state.pending[id] else { return }
            try deleteOutbox(id)
            guard let row = state.rowID(of: old.change), statements[row.table] != nil else {
                state.pending[id] = nil
                return
            }
            let base = try serverRow(row, state)
            state.pending[id] = nil
            state.removePending(id, from: row)
            try settle(row, base: base, state)
            keys[row.table, default: []].insert(row.key)
        case .seal(let key, let ids):
            try connection.prepared("DELETE FROM \(Self.batches)").run()
            let insert = try connection.prepared("INSERT INTO \(Self.batches) (key, ids) VALUES (?, ?)")
            try insert.bind(key, at: 1)
            try insert.bind(ids.map(String.init).joined(separator: ","), at: 2)
            try insert.run()
            state.sealed = ReplicaState.Sealed(key: key, ids: ids)
        case .unseal:
            try connection.prepared("DELETE FROM \(Self.batches)").run()
            state.sealed = nil
        case .upsert(let name, let rows):
            guard let table = state.tables[name], let sql = statements[name] else { return }
            var changed = Set<RowKey>()
            changed.reserveCapacity(rows.count)
            // A delta's rows are mostly rows without local changes: one prepared INSERT for them all.
            let upsert = try connection.prepared(sql.upsert)
            for row in rows {
                let key = table.key(of: row)
                let id = ReplicaState.RowID(table: name, key: key)
                if state.pendingByRow[id] == nil {
                    upsert.reset()
                    try upsert.bind(row)
                    try upsert.run()
                } else {
                    try settle(id, base: row, state, hadChanges: false)
                }
                changed.insert(key)
            }
            keys[name, default: []].formUnion(changed)
        case .delete(let name, let deleted):
            guard statements[name] != nil else { return }
            for key in deleted { try settle(ReplicaState.RowID(table: name, key: key), base: nil, state, hadChanges: false) }
            keys[name, default: []].formUnion(deleted)
        case .replace(let name, let fields, let rows, let token):
            guard let insert = try beginReplace(name, fields: fields, in: &state) else { return }
            for row in rows {
                insert.reset()
                try insert.bind(row)
                try insert.run()
            }
            try endReplace(name, token: token, in: &state)
            whole.insert(name)
        case .token(let name, let token):
            guard state.tables[name] != nil else { return }
            state.tables[name]!.token = token
            let update = try connection.prepared("UPDATE \(Self.tables) SET token = ? WHERE name = ?")
            try update.bind(token, at: 1)
            try update.bind(name, at: 2)
            try update.run()
        case .foreignKeys(let name, let columns):
            guard let table = state.tables[name], table.isDownloaded else { return }
            try createForeignKeyIndexes(table, columns)
        case .forget(let name):
            guard let table = state.tables[name] else { return }
            try forget(table, state: &state)
            whole.insert(name)
        case .counters(let change, let temporary):
            state.nextChange = change
            state.nextTemporaryKey = temporary
            try writeCounters(state)
        }
    }

    /// The start of a table's replacement: its new fields, and an empty table. Answers the
    /// statement that inserts its rows; nil for a table the replica does not keep.
    func beginReplace(_ name: String, fields: [DataTableField], in state: inout ReplicaState) throws(SQLiteError) -> SQLiteStatement? {
        guard var table = state.tables[name] else { return nil }
        table.setFields(fields)
        state.tables[name] = table
        let sql = ReplicaTableSQL(table)
        statements[name] = sql
        try connection.execute(ReplicaTableSQL.drop(name))
        try connection.execute(sql.create)
        return try connection.prepared(sql.upsert)
    }

    /// The end of a table's replacement, once its rows are in: its declared indexes (built once
    /// over all the rows, which is faster than keeping them up to date row by row), its token,
    /// and its rows with local changes, whose server version goes aside while the local one shows.
    func endReplace(_ name: String, token: String?, in state: inout ReplicaState) throws(SQLiteError) {
        guard let sql = statements[name], let table = state.tables[name] else { return }
        try createIndexes(table)
        state.tables[name]?.token = token
        for key in state.pendingRows(of: name) {
            let row = ReplicaState.RowID(table: name, key: key)
            try settle(row, base: try read(sql.select, key: key, fields: sql.fields), state)
        }
        if let table = state.tables[name] { try writeDefinition(table, position: state.order.firstIndex(of: name) ?? 0) }
    }

    // MARK: Rows

    /// The server's version of a row: aside when the row has local changes, else the visible row.
    func serverRow(_ row: ReplicaState.RowID, _ state: ReplicaState) throws(SQLiteError) -> [ODataValue]? {
        guard let sql = statements[row.table] else { return nil }
        return try read(state.hasPendingChanges(row.table, key: row.key) ? sql.selectServer : sql.select, key: row.key, fields: sql.fields)
    }

    /// Writes a row given its server version (`base`, nil: the server has none) and the state's
    /// pending changes of it: the visible row is the base with the changes applied, and the base is
    /// kept aside while there are changes. `hadChanges: false` says the row had no changes before
    /// either, so nothing of it is aside (the common case of a pulled row: one statement).
    private func settle(_ row: ReplicaState.RowID, base: [ODataValue]?, _ state: ReplicaState, hadChanges: Bool = true) throws(SQLiteError) {
        guard let sql = statements[row.table] else { return }
        var visible = base
        if let ids = state.pendingByRow[row], !ids.isEmpty {
            if let base { try write(sql.upsertServer, values: base) } else { try write(sql.deleteServer, values: row.key) }
            for id in ids { visible = state.pending[id]?.applied(to: visible, fields: sql.fields) }
        } else if hadChanges {
            try write(sql.deleteServer, values: row.key)
        }
        if let visible { try write(sql.upsert, values: visible) } else { try write(sql.delete, values: row.key) }
    }

    func read(_ select: String, key: RowKey, fields: [DataTableField]) throws(SQLiteError) -> [ODataValue]? {
        let statement = try connection.prepared(select)
        try statement.bind(key)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try (0 ..< fields.count).map { index throws(SQLiteError) in try statement.value(index, as: fields[index].type) }
    }

    private func write(_ sql: String, values: [ODataValue]) throws(SQLiteError) {
        let statement = try connection.prepared(sql)
        try statement.bind(values)
        try statement.run()
    }

    /// Drops a table's rows and token; its local changes stay, applied over no server row.
    func forget(_ table: ReplicaState.Table, state: inout ReplicaState) throws(SQLiteError) {
        let name = table.definition.name
        state.tables[name]?.token = nil
        if table.isDownloaded {
            try connection.execute("DELETE FROM \(SQLiteIdentifier(name)); DELETE FROM \(Self.serverTable(name));")
            for key in state.pendingRows(of: name) { try settle(ReplicaState.RowID(table: name, key: key), base: nil, state) }
        }
        if let kept = state.tables[name] { try writeDefinition(kept, position: state.order.firstIndex(of: name) ?? 0) }
    }

    // MARK: Strata's tables

    func writeDefinition(_ table: ReplicaState.Table, position: Int) throws(SQLiteError) {
        let statement = try connection.prepared("""
            INSERT OR REPLACE INTO \(Self.tables) (name, position, filter, conflicts, indexes, fields, token) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.bind(table.definition.name, at: 1)
        try statement.bind(Int64(position), at: 2)
        try statement.bind(table.definition.filter, at: 3)
        try statement.bind(table.definition.conflicts.rawValue, at: 4)
        try statement.bind(Self.writeIndexes(table.definition.indexes), at: 5)
        try statement.bind(table.isDownloaded ? Self.writeFields(table.fields) : nil, at: 6)
        try statement.bind(table.token, at: 7)
        try statement.run()
    }

    func writeCounters(_ state: ReplicaState) throws(SQLiteError) {
        let statement = try connection.prepared("INSERT OR REPLACE INTO \(Self.meta) (name, value) VALUES (?, ?)")
        try statement.bind("nextChange", at: 1)
        try statement.bind(Int64(state.nextChange), at: 2)
        try statement.run()
        statement.reset()
        try statement.bind("nextTemporaryKey", at: 1)
        try statement.bind(state.nextTemporaryKey, at: 2)
        try statement.run()
    }

    private func putOutbox(_ change: PendingChange) throws(SQLiteError) {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        ReplicaMutation.write(change, to: &writer)
        writer.endObject()
        let statement = try connection.prepared("INSERT OR REPLACE INTO \(Self.outbox) (id, change) VALUES (?, ?)")
        try statement.bind(Int64(bitPattern: change.id), at: 1)
        try statement.bind(String(decoding: writer.bytes, as: UTF8.self), at: 2)
        try statement.run()
    }

    private func deleteOutbox(_ id: UInt64) throws(SQLiteError) {
        let statement = try connection.prepared("DELETE FROM \(Self.outbox) WHERE id = ?")
        try statement.bind(Int64(bitPattern: id), at: 1)
        try statement.run()
    }

    /// An index on each foreign key of the table, replacing those it had — except for a foreign key
    /// whose fields begin the key or a declared index, which serves it already, and one that names a
    /// field the replica does not have (a column hidden from this user).
    func createForeignKeyIndexes(_ table: ReplicaState.Table, _ foreignKeys: [[String]]) throws(SQLiteError) {
        let name = table.definition.name
        try dropIndexes(of: name, prefix: "strata.fk.")
        let fields = Set(table.fields.map(\.name))
        let served = [table.keyFields.map(\.name)] + table.definition.indexes
        var made: Set<[String]> = []
        for columns in foreignKeys where !columns.isEmpty && columns.allSatisfy(fields.contains) {
            guard !served.contains(where: { $0.starts(with: columns) }), made.insert(columns).inserted else { continue }
            let list = columns.map { SQLiteIdentifier($0).quoted }.joined(separator: ", ")
            let index = SQLiteIdentifier("strata.fk.\(name).\(columns.joined(separator: ","))")
            try connection.execute("CREATE INDEX \(index) ON \(SQLiteIdentifier(name)) (\(list))")
        }
    }

    /// Drops the table's indexes whose names begin with `prefix`.
    private func dropIndexes(of table: String, prefix: String) throws(SQLiteError) {
        let existing = try connection.prepared("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, ?) = ?")
        try existing.bind(table, at: 1)
        try existing.bind(Int64(prefix.utf8.count), at: 2)
        try existing.bind(prefix, at: 3)
        var old: [String] = []
        while try existing.step() { if let index = existing.text(0) { old.append(index) } }
        existing.reset()
        for index in old { try connection.execute("DROP INDEX IF EXISTS \(SQLiteIdentifier(index))") }
    }

    /// The table's declared indexes (on the table the app queries), replacing any it had.
    func createIndexes(_ table: ReplicaState.Table) throws(SQLiteError) {
        let name = table.definition.name
        try dropIndexes(of: name, prefix: "strata.index.")
        for columns in table.definition.indexes {
            let list = columns.map { SQLiteIdentifier($0).quoted }.joined(separator: ", ")
            try connection.execute("CREATE INDEX \(ReplicaTableSQL.indexName(name, columns)) ON \(SQLiteIdentifier(name)) (\(list))")
        }
    }
}
