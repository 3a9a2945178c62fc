import StrataCore

extension Replica {
    /// Inserts a row locally; it is on disk and visible when this returns, and sent at the next sync.
    ///
    /// A server-generated integer key left out gets a temporary negative key (unique in the
    /// replica), replaced by the server's key when the insert is acknowledged; rows inserted with it
    /// as a foreign key (a detail of the new row) are rewritten then too.
    /// - Returns: the new row's key.
    @discardableResult
    public func insert(into name: String, _ values: DataTableValues) throws(ReplicaError) -> DataTableValues {
        let table = try shape(name)
        var converted = try convert(values, of: table, allowKeys: true)
        var key: DataTableValues = [:]
        var counters: ReplicaMutation?
        for position in table.keyPositions {
            let field = table.fields[position]
            if let value = converted.removeValue(forKey: field.name) {
                key[field.name] = value
            } else if field.serverGenerated, [.int16, .int32, .int64].contains(field.type) {
                key[field.name] = ODataValue.int64(state.nextTemporaryKey).converted(to: field.type) ?? .int64(state.nextTemporaryKey)
                counters = .counters(nextChange: state.nextChange + 1, nextTemporaryKey: state.nextTemporaryKey - 1)
            } else {
                throw ReplicaError(.invalidChange, "an insert into \(name) needs its key field \(field.name)")
            }
        }
        let rowKey = try self.key(key, of: table)
        guard try visibleRow(name, rowKey) == nil else {
            throw ReplicaError(.invalidChange, "\(name) already has a row with the key \(key); update it instead")
        }
        let change = PendingChange(id: state.nextChange, change: DataTableChange(id: String(state.nextChange), table: name, kind: .insert,
                                                                                  key: key, values: converted))
        try commit([counters ?? .counters(nextChange: state.nextChange + 1, nextTemporaryKey: state.nextTemporaryKey), .putPending(change)],
                   origin: .local)
        return key
    }

    /// Changes fields of a row locally (not its key); sent at the next sync with the values the
    /// row had before, the server's conflict check.
    public func update(_ name: String, key: DataTableValues, _ values: DataTableValues) throws(ReplicaError) {
        let table = try shape(name)
        let rowKey = try self.key(key, of: table)
        guard let current = try visibleRow(name, rowKey) else { throw ReplicaError(.invalidChange, "\(name) has no row with the key \(key)") }
        let converted = try convert(values, of: table, allowKeys: false)
        var original: DataTableValues = [:]
        var changed: DataTableValues = [:]
        for (field, value) in converted {
            let old = current[table.fields.firstIndex { $0.name == field }!]
            guard old != value else { continue }
            original[field] = old
            changed[field] = value
        }
        guard !changed.isEmpty else { return }
        if var open = openChange(of: name, key: rowKey) {
            switch open.change.kind {
            case .insert:
                open.change.values.merge(changed) { _, new in new }
            case .update:
                open.change.values.merge(changed) { _, new in new }
                open.change.original.merge(original) { earlier, _ in earlier }
            case .delete:
                throw ReplicaError(.invalidChange, "the row of \(name) with the key \(key) is deleted")
            }
            open.error = nil
            try commit([.putPending(open)], origin: .local)
            return
        }
        try commit(newChange(name, .update, key: table.keyValues(rowKey), original: original, values: changed), origin: .local)
    }

    /// Deletes a row locally; sent at the next sync.
    public func delete(from name: String, key: DataTableValues) throws(ReplicaError) {
        let table = try shape(name)
        let rowKey = try self.key(key, of: table)
        guard let current = try visibleRow(name, rowKey) else { throw ReplicaError(.invalidChange, "\(name) has no row with the key \(key)") }
        if var open = openChange(of: name, key: rowKey) {
            switch open.change.kind {
            case .insert:
                // Never sent: nothing for the server to delete.
                try commit([.dropPending(open.id)], origin: .local)
            case .update:
                open.change.kind = .delete
                open.change.values = [:]
                open.error = nil
                try commit([.putPending(open)], origin: .local)
            case .delete:
                return
            }
            return
        }
        var original: DataTableValues = [:]
        for (field, value) in zip(table.fields, current) where !field.key { original[field.name] = value }
        try commit(newChange(name, .delete, key: table.keyValues(rowKey), original: original, values: [:]), origin: .local)
    }

    /// Settles a waiting conflict (``waitingConflicts``).
    public func resolve(_ conflict: ReplicaConflict, _ resolution: ConflictResolution) throws(ReplicaError) {
        guard var change = state.pending[conflict.id], let server = change.conflict else {
            throw ReplicaError(.invalidChange, "that conflict is no longer waiting (it was resolved, or the replica was reloaded)")
        }
        let table = try shape(change.change.table)
        let rowKey = table.key(of: change.change)
        switch resolution {
        case .keepServer:
            // The server's row is in place already, unless the server deleted it.
            try commit([.dropPending(change.id)] + (server.values == nil ? [.delete(table: table.definition.name, keys: [rowKey])] : []),
                       origin: .local)
            return
        case .keepLocal:
            break
        case .use(let values):
            change.change.values = try convert(values, of: table, allowKeys: false)
        }
        change.conflict = nil
        change.error = nil
        switch (server.values, change.change.kind) {
        case (let row?, _):
            let keyNames = Set(table.fields.filter(\.key).map(\.name))
            change.change.original = row.filter { name, _ in
                !keyNames.contains(name) && (change.change.kind == .delete || change.change.values[name] != nil)
            }
        case (nil, .delete):
            // A delete of a row the server deleted too: nothing left to do.
            try commit([.dropPending(change.id)], origin: .local)
            return
        case (nil, _):
            // The server deleted the row: keeping the local version inserts it again, whole (the
            // change holds the whole row since the conflict was found), under a new temporary key
            // when the server makes the keys.
            var key = change.change.key
            var counters: [ReplicaMutation] = []
            for position in table.keyPositions where table.fields[position].serverGenerated {
                let field = table.fields[position]
                key[field.name] = ODataValue.int64(state.nextTemporaryKey).converted(to: field.type) ?? .int64(state.nextTemporaryKey)
                counters = [.counters(nextChange: state.nextChange, nextTemporaryKey: state.nextTemporaryKey - 1)]
            }
            change.change = DataTableChange(id: change.change.id, table: change.change.table, kind: .insert, key: key,
                                            values: change.change.values)
            try commit(counters + [.delete(table: table.definition.name, keys: [rowKey]), .putPending(change)], origin: .local)
            return
        }
        try commit([.putPending(change)], origin: .local)
    }

    // MARK: Helpers

    /// The row's change that can still take edits: the newest, when it is not in the batch being
    /// sent and not waiting for the app.
    private func openChange(of table: String, key: RowKey) -> PendingChange? {
        guard let last = state.pendingChanges(of: table, key: key).last, !last.isWaiting,
              !(state.sealed?.ids.contains(last.id) ?? false) else { return nil }
        return last
    }

    private func newChange(_ table: String, _ kind: DataTableChange.Kind, key: DataTableValues, original: DataTableValues,
                           values: DataTableValues) -> [ReplicaMutation] {
        let id = state.nextChange
        return [
            .counters(nextChange: id + 1, nextTemporaryKey: state.nextTemporaryKey),
            .putPending(PendingChange(id: id, change: DataTableChange(id: String(id), table: table, kind: kind, key: key,
                                                                       original: original, values: values))),
        ]
    }

    /// Values by field, converted to the fields' types; names must be fields, and not read-only
    /// (nor keys, unless `allowKeys`).
    private func convert(_ values: DataTableValues, of table: ReplicaState.Table, allowKeys: Bool) throws(ReplicaError) -> DataTableValues {
        guard table.isDownloaded else {
            throw ReplicaError(.invalidChange, "\(table.definition.name) has not been downloaded yet; sync once first")
        }
        var converted: DataTableValues = [:]
        for (name, value) in values {
            guard let field = table.fields.first(where: { $0.name == name }) else {
                throw ReplicaError(.unknownName, "\(table.definition.name) has no field '\(name)'; its fields are \(table.fields.map(\.name).joined(separator: ", "))")
            }
            if field.key && !allowKeys { throw ReplicaError(.invalidChange, "\(name) is part of the key of \(table.definition.name); keys cannot change") }
            if field.readOnly && !field.key { throw ReplicaError(.invalidChange, "\(name) of \(table.definition.name) is read-only") }
            if value.isNull {
                guard !field.required || field.serverGenerated else { throw ReplicaError(.invalidChange, "\(name) of \(table.definition.name) is required") }
                converted[name] = .null
                continue
            }
            guard let typed = value.converted(to: field.type) else {
                throw ReplicaError(.invalidChange, "\(name) of \(table.definition.name) takes \(field.type.rawValue), not \(value)")
            }
            converted[name] = typed
        }
        return converted
    }
}

extension ReplicaState.Table {
    /// Key values by field name.
    func keyValues(_ key: RowKey) -> DataTableValues {
        Dictionary(uniqueKeysWithValues: zip(keyPositions.map { fields[$0].name }, key))
    }
}

/// A local change not yet acknowledged by the server, as ``Replica/pendingChanges`` lists it.
public struct LocalChange: Sendable, Hashable, Identifiable {
    /// The change's number in the replica, increasing in the order changes were made.
    public var id: UInt64
    /// The table of the changed row.
    public var table: String
    /// Insert, update or delete.
    public var kind: DataTableChange.Kind
    /// The row's key (a temporary one for a new row).
    public var key: DataTableValues
    /// The new values (empty for a delete).
    public var values: DataTableValues
    /// Why the server refused it at the last sync; it is sent again at the next one.
    public var error: String?
    /// True while it waits for ``Replica/resolve(_:_:)``.
    public var isWaiting: Bool
    /// True while it is in the batch being sent (it can no longer be reverted).
    public var isSending: Bool
}

extension Replica {
    /// The local changes the server has not acknowledged, oldest first.
    public var pendingChanges: [LocalChange] {
        state.pendingInOrder.map { change in
            LocalChange(id: change.id, table: change.change.table, kind: change.change.kind, key: change.change.key,
                        values: change.change.values, error: change.error, isWaiting: change.isWaiting,
                        isSending: state.sealed?.ids.contains(change.id) ?? false)
        }
    }

    /// Drops the unsent local changes of a row: it shows the server's version again (a row
    /// inserted here disappears). Changes in the batch being sent stay: the server may have them.
    public func revert(_ table: String, key: DataTableValues) throws(ReplicaError) {
        let stored = try shape(table)
        let rowKey = try self.key(key, of: stored)
        let sending = Set(state.sealed?.ids ?? [])
        let drops = state.pendingChanges(of: table, key: rowKey).filter { !sending.contains($0.id) }.map { ReplicaMutation.dropPending($0.id) }
        try commit(drops, origin: .local)
    }
}
