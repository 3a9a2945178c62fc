import StrataCore

/// A replica directory of the format before the local database (a snapshot and a journal), read
/// into memory: per table the server's rows and its delta token, the local changes not yet
/// acknowledged, and the rows the app saw.
///
/// Only the conversion of such a directory uses it (``ReplicaLegacyConversion``): it replays the
/// journal with ``apply(_:)`` exactly as the old replica did, then the result goes into the database.
struct ReplicaJournalState: Sendable {
    package struct Table: Sendable {
        var definition: ReplicaTable
        /// Empty until the table is first downloaded.
        var fields: [DataTableField] = []
        var keyPositions: [Int] = []
        var server: [RowKey: [ODataValue]] = [:]
        var token: String?
        /// What the app sees: ``server`` with the pending changes applied.
        var visible: [RowKey: [ODataValue]] = [:]

        var isDownloaded: Bool { !fields.isEmpty }

        func key(of row: [ODataValue]) -> RowKey { keyPositions.map { row[$0] } }

        /// The key of a change, in key-field order.
        func key(of change: DataTableChange) -> RowKey {
            keyPositions.map { change.key[fields[$0].name] ?? .null }
        }
    }

    // The same batch and row identities as the replica's current state, so a converted replica
    // carries them over unchanged.
    typealias Sealed = ReplicaState.Sealed
    typealias RowID = ReplicaState.RowID

    var tables: [String: Table] = [:]
    /// The tables in the order the replica was defined with (masters before details).
    var order: [String] = []
    var pending: [UInt64: PendingChange] = [:]
    /// The pending changes of each row, oldest first.
    private(set) var pendingByRow: [RowID: [UInt64]] = [:]
    var sealed: Sealed?
    var nextChange: UInt64 = 1
    var nextTemporaryKey: Int64 = -1

    init(definition: [ReplicaTable]) {
        for table in definition {
            tables[table.name] = Table(definition: table)
            order.append(table.name)
        }
    }

    /// The state for the app's `definition`: tables no longer listed are dropped with their
    /// pending changes; a table whose `where` changed forgets its rows and token (they were another
    /// query's) and keeps its pending changes; new tables start empty; policies are the app's.
    /// Answers whether anything but the policies changed. A table with changes in the batch being
    /// sent cannot be dropped: the batch must go as it was sealed, or the server could apply its
    /// other changes twice.
    mutating func reconcile(with definition: [ReplicaTable]) throws(ReplicaError) -> Bool {
        let wanted = Set(definition.map(\.name))
        if let sealed {
            let sending = Set(sealed.ids.compactMap { pending[$0]?.change.table })
            if let dropped = sending.subtracting(wanted).sorted().first {
                throw ReplicaError(.invalidChange, "changes of \(dropped) are being sent; open the replica with \(dropped) once more and sync before dropping it")
            }
        }
        var changed = definition.map(\.name) != order
        var next: [String: Table] = [:]
        for table in definition {
            guard var kept = tables[table.name] else {
                next[table.name] = Table(definition: table)
                changed = true
                continue
            }
            if kept.definition.filter != table.filter {
                kept.server = [:]
                kept.visible = [:]
                kept.token = nil
                changed = true
            }
            kept.definition = table
            next[table.name] = kept
        }
        for (id, change) in pending where next[change.change.table] == nil { pending[id] = nil }
        tables = next
        order = definition.map(\.name)
        rebuild()
        return changed
    }

    /// The pending changes in the order they were made.
    var pendingInOrder: [PendingChange] { pending.keys.sorted().map { pending[$0]! } }

    /// Applies one mutation; answers the rows whose visible state may have changed (a table name
    /// with no key: the whole table).
    ///
    /// Written so that no copy of a table is alive while its dictionaries change: a `Table` value
    /// taken out of ``tables`` would share their storage, and the first write would copy all of it
    /// (100,000 rows for one changed key).
    @discardableResult
    mutating func apply(_ mutation: ReplicaMutation) -> [String: Set<RowKey>?] {
        var keys: [String: Set<RowKey>] = [:]
        var whole: Set<String> = []
        switch mutation {
        case .putPending(let change):
            guard let newRow = rowID(of: change.change) else { break }
            if let old = pending[change.id], let oldRow = rowID(of: old.change), oldRow != newRow {
                pendingByRow[oldRow]?.removeAll { $0 == change.id }
                if pendingByRow[oldRow]?.isEmpty == true { pendingByRow[oldRow] = nil }
                refresh(oldRow)
                keys[oldRow.table, default: []].insert(oldRow.key)
            }
            pending[change.id] = change
            if !(pendingByRow[newRow]?.contains(change.id) ?? false) {
                pendingByRow[newRow, default: []].append(change.id)
                pendingByRow[newRow]!.sort()
            }
            refresh(newRow)
            keys[newRow.table, default: []].insert(newRow.key)
        case .dropPending(let id):
            guard let old = pending.removeValue(forKey: id), let row = rowID(of: old.change) else { break }
            pendingByRow[row]?.removeAll { $0 == id }
            if pendingByRow[row]?.isEmpty == true { pendingByRow[row] = nil }
            refresh(row)
            keys[row.table, default: []].insert(row.key)
        case .seal(let key, let ids):
            sealed = Sealed(key: key, ids: ids)
        case .unseal:
            sealed = nil
        case .upsert(let name, let rows):
            guard let positions = tables[name]?.keyPositions else { break }
            var changed = Set<RowKey>()
            changed.reserveCapacity(rows.count)
            for row in rows {
                let key = positions.map { row[$0] }
                tables[name]!.server[key] = row
                changed.insert(key)
            }
            for key in changed { refresh(RowID(table: name, key: key)) }
            keys[name, default: []].formUnion(changed)
        case .delete(let name, let deleted):
            guard tables[name] != nil else { break }
            for key in deleted {
                tables[name]!.server[key] = nil
                refresh(RowID(table: name, key: key))
            }
            keys[name, default: []].formUnion(deleted)
        case .replace(let name, let fields, let rows, let token):
            guard var table = tables.removeValue(forKey: name) else { break }
            table.fields = fields
            table.keyPositions = fields.indices.filter { fields[$0].key }
            let positions = table.keyPositions
            table.server = Dictionary(rows.map { row in (positions.map { row[$0] }, row) }, uniquingKeysWith: { _, later in later })
            table.token = token
            tables[name] = table
            refreshTable(name)
            whole.insert(name)
        case .token(let name, let token):
            tables[name]?.token = token
        case .foreignKeys:
            // Indexes of the database; the journal's state has none.
            break
        case .forget(let name):
            guard tables[name] != nil else { break }
            tables[name]!.server = [:]
            tables[name]!.token = nil
            refreshTable(name)
            whole.insert(name)
        case .counters(let change, let temporary):
            nextChange = change
            nextTemporaryKey = temporary
        }
        var touched: [String: Set<RowKey>?] = [:]
        for (table, changed) in keys { touched[table] = .some(changed) }
        for table in whole { touched[table] = .some(nil) }
        return touched
    }

    /// The row a change is about; nil for a table the replica does not keep.
    private func rowID(of change: DataTableChange) -> RowID? {
        guard let table = tables[change.table] else { return nil }
        return RowID(table: change.table, key: table.key(of: change))
    }

    /// Recomputes what the app sees of one row.
    private mutating func refresh(_ row: RowID) {
        guard let fields = tables[row.table]?.fields else { return }
        var values = tables[row.table]!.server[row.key]
        for id in pendingByRow[row] ?? [] {
            values = pending[id]!.applied(to: values, fields: fields)
        }
        tables[row.table]!.visible[row.key] = values
    }

    private mutating func refreshTable(_ name: String) {
        guard tables[name] != nil else { return }
        tables[name]!.visible = tables[name]!.server
        for row in pendingByRow.keys where row.table == name { refresh(row) }
    }

    /// After a whole state was read (a snapshot): the index of pending changes and the visible rows.
    mutating func rebuild() {
        pendingByRow = [:]
        for change in pending.values {
            guard let table = tables[change.change.table] else { continue }
            pendingByRow[RowID(table: change.change.table, key: table.key(of: change.change)), default: []].append(change.id)
        }
        for row in pendingByRow.keys { pendingByRow[row]!.sort() }
        for name in order { refreshTable(name) }
    }

    /// The pending changes of a row, oldest first.
    func pendingChanges(of table: String, key: RowKey) -> [PendingChange] {
        (pendingByRow[RowID(table: table, key: key)] ?? []).map { pending[$0]! }
    }
}
