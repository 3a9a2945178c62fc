import StrataCore

/// Everything a replica holds, in memory: per table the server's rows (as last pulled or
/// acknowledged) and its delta token; the local changes not yet acknowledged; and the rows the app
/// sees — the server's rows with the local changes applied over them, kept current key by key.
///
/// It changes only through ``apply(_:)`` of ``ReplicaMutation``s, which is also how the journal is
/// replayed, so a reopened replica is exactly the one that was closed or killed.
struct ReplicaState: Sendable {
    struct Table: Sendable {
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

    struct Sealed: Sendable, Hashable {
        var key: String
        var ids: [UInt64]
    }

    struct RowID: Sendable, Hashable {
        var table: String
        var key: RowKey
    }

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
    @discardableResult
    mutating func apply(_ mutation: ReplicaMutation) -> [String: Set<RowKey>?] {
        var touched: [String: Set<RowKey>?] = [:]
        func touch(_ table: String, _ key: RowKey) {
            if case .some(.none) = touched[table] { return }
            var keys = touched[table].flatMap { $0 } ?? []
            keys.insert(key)
            touched[table] = .some(keys)
        }
        switch mutation {
        case .putPending(let change):
            guard let table = tables[change.change.table] else { break }
            if let old = pending[change.id] {
                let oldRow = RowID(table: old.change.table, key: tables[old.change.table]?.key(of: old.change) ?? [])
                pendingByRow[oldRow]?.removeAll { $0 == change.id }
                if pendingByRow[oldRow]?.isEmpty == true { pendingByRow[oldRow] = nil }
                refresh(oldRow)
                touch(oldRow.table, oldRow.key)
            }
            pending[change.id] = change
            let row = RowID(table: change.change.table, key: table.key(of: change.change))
            pendingByRow[row, default: []].append(change.id)
            pendingByRow[row]!.sort()
            refresh(row)
            touch(row.table, row.key)
        case .dropPending(let id):
            guard let old = pending.removeValue(forKey: id), let table = tables[old.change.table] else { break }
            let row = RowID(table: old.change.table, key: table.key(of: old.change))
            pendingByRow[row]?.removeAll { $0 == id }
            if pendingByRow[row]?.isEmpty == true { pendingByRow[row] = nil }
            refresh(row)
            touch(row.table, row.key)
        case .seal(let key, let ids):
            sealed = Sealed(key: key, ids: ids)
        case .unseal:
            sealed = nil
        case .upsert(let name, let rows):
            guard var table = tables[name] else { break }
            var keys: [RowKey] = []
            for row in rows {
                let key = table.key(of: row)
                table.server[key] = row
                keys.append(key)
            }
            tables[name] = table
            for key in keys {
                refresh(RowID(table: name, key: key))
                touch(name, key)
            }
        case .delete(let name, let keys):
            guard tables[name] != nil else { break }
            for key in keys {
                tables[name]!.server[key] = nil
                refresh(RowID(table: name, key: key))
                touch(name, key)
            }
        case .replace(let name, let fields, let rows, let token):
            guard var table = tables[name] else { break }
            table.fields = fields
            table.keyPositions = fields.indices.filter { fields[$0].key }
            table.server = Dictionary(rows.map { (table.key(of: $0), $0) }, uniquingKeysWith: { _, later in later })
            table.token = token
            tables[name] = table
            refreshTable(name)
            touched[name] = .some(nil)
        case .token(let name, let token):
            tables[name]?.token = token
        case .forget(let name):
            guard var table = tables[name] else { break }
            table.server = [:]
            table.token = nil
            tables[name] = table
            refreshTable(name)
            touched[name] = .some(nil)
        case .counters(let change, let temporary):
            nextChange = change
            nextTemporaryKey = temporary
        }
        return touched
    }

    /// Recomputes what the app sees of one row.
    private mutating func refresh(_ row: RowID) {
        guard let table = tables[row.table] else { return }
        var values = table.server[row.key]
        for id in pendingByRow[row] ?? [] {
            values = pending[id]!.applied(to: values, fields: table.fields)
        }
        tables[row.table]!.visible[row.key] = values
    }

    private mutating func refreshTable(_ name: String) {
        guard let table = tables[name] else { return }
        tables[name]!.visible = table.server
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
