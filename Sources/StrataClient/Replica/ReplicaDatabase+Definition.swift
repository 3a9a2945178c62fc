import StrataCore

extension ReplicaDatabase {
    /// Brings the stored tables to the app's definition, in one transaction: a table no longer
    /// listed is dropped with its unsent changes, a table whose filter changed forgets its rows
    /// (downloaded again at the next sync; its local changes stay), new indexes are built.
    ///
    /// A table with changes in the batch being sent cannot be dropped: the batch must go as it was
    /// sealed, or the server could apply its other changes twice.
    func reconcile(_ state: inout ReplicaState, with definition: [ReplicaTable]) throws(ReplicaError) {
        let wanted = Set(definition.map(\.name))
        if let sealed = state.sealed {
            let sending = Set(sealed.ids.compactMap { state.pending[$0]?.change.table })
            if let dropped = sending.subtracting(wanted).sorted().first {
                throw ReplicaError(.invalidChange, "changes of \(dropped) are being sent; open the replica with \(dropped) once more and sync before dropping it")
            }
        }
        for table in definition {
            guard !table.name.isEmpty, !table.name.contains("\0"), !table.name.contains(".") else {
                throw ReplicaError(.unknownName, "'\(table.name)' is not a table name; name an entity set of the service")
            }
            if let fields = state.tables[table.name]?.fields, !fields.isEmpty { try Self.check(indexes: table, fields: fields) }
        }
        // The same definition as stored (the usual open): nothing to write, no transaction to flush.
        if state.order == definition.map(\.name), definition.allSatisfy({ state.tables[$0.name]?.definition == $0 }) { return }
        var next = state
        let savedStatements = statements
        do {
            try connection.transaction { () throws(SQLiteError) in
                for name in next.order where !wanted.contains(name) {
                    try connection.execute(ReplicaTableSQL.drop(name))
                    let delete = try connection.prepared("DELETE FROM \(Self.tables) WHERE name = ?")
                    try delete.bind(name, at: 1)
                    try delete.run()
                    statements[name] = nil
                    next.tables[name] = nil
                    for (id, change) in next.pending where change.change.table == name {
                        let statement = try connection.prepared("DELETE FROM \(Self.outbox) WHERE id = ?")
                        try statement.bind(Int64(bitPattern: id), at: 1)
                        try statement.run()
                        next.pending[id] = nil
                    }
                }
                next.order = definition.map(\.name)
                next.rebuildIndex()
                for (position, table) in definition.enumerated() {
                    guard var kept = next.tables[table.name] else {
                        next.tables[table.name] = ReplicaState.Table(definition: table)
                        try writeDefinition(next.tables[table.name]!, position: position)
                        continue
                    }
                    let filterChanged = kept.definition.filter != table.filter
                    let indexesChanged = kept.definition.indexes != table.indexes
                    kept.definition = table
                    next.tables[table.name] = kept
                    if filterChanged { try forget(kept, state: &next) }
                    if indexesChanged, kept.isDownloaded { try createIndexes(kept) }
                    try writeDefinition(next.tables[table.name]!, position: position)
                }
            }
        } catch {
            statements = savedStatements
            throw replicaError(error)
        }
        state = next
    }
}
