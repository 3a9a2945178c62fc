import StrataCore

/// What a replica keeps in memory besides its database: per table its definition, fields and
/// delta token; the local changes not yet acknowledged with an index by row; the batch being sent;
/// the counters. The rows are in the database only (``ReplicaDatabase``), so memory does not grow
/// with them.
///
/// It changes only through ``ReplicaDatabase/apply(_:to:initializing:)``, in the same transaction as the
/// database, so the two never disagree.
struct ReplicaState: Sendable {
    struct Table: Sendable {
        var definition: ReplicaTable
        /// Empty until the table is first downloaded.
        var fields: [DataTableField] = []
        var keyPositions: [Int] = []
        var token: String?

        var isDownloaded: Bool { !fields.isEmpty }

        init(definition: ReplicaTable, fields: [DataTableField] = [], token: String? = nil) {
            self.definition = definition
            self.token = token
            setFields(fields)
        }

        mutating func setFields(_ fields: [DataTableField]) {
            self.fields = fields
            keyPositions = fields.indices.filter { fields[$0].key }
        }

        func key(of row: [ODataValue]) -> RowKey { keyPositions.map { row[$0] } }

        /// The key of a change, in key-field order.
        func key(of change: DataTableChange) -> RowKey {
            keyPositions.map { change.key[fields[$0].name] ?? .null }
        }

        var keyFields: [DataTableField] { keyPositions.map { fields[$0] } }
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
    var pendingByRow: [RowID: [UInt64]] = [:]
    var sealed: Sealed?
    var nextChange: UInt64 = 1
    var nextTemporaryKey: Int64 = -1

    init(definition: [ReplicaTable]) {
        for table in definition { tables[table.name] = Table(definition: table) }
        order = definition.map(\.name)
    }

    /// The pending changes in the order they were made.
    var pendingInOrder: [PendingChange] { pending.keys.sorted().map { pending[$0]! } }

    /// The row a change is about; nil for a table the replica does not keep.
    func rowID(of change: DataTableChange) -> RowID? {
        guard let table = tables[change.table] else { return nil }
        return RowID(table: change.table, key: table.key(of: change))
    }

    /// The pending changes of a row, oldest first.
    func pendingChanges(of table: String, key: RowKey) -> [PendingChange] {
        (pendingByRow[RowID(table: table, key: key)] ?? []).map { pending[$0]! }
    }

    func hasPendingChanges(_ table: String, key: RowKey) -> Bool {
        pendingByRow[RowID(table: table, key: key)] != nil
    }

    /// After the pending changes were read: the index by row.
    mutating func rebuildIndex() {
        pendingByRow = [:]
        for change in pending.values {
            guard let row = rowID(of: change.change) else { continue }
            pendingByRow[row, default: []].append(change.id)
        }
        for row in pendingByRow.keys { pendingByRow[row]!.sort() }
    }

    mutating func addPending(_ id: UInt64, to row: RowID) {
        guard !(pendingByRow[row]?.contains(id) ?? false) else { return }
        pendingByRow[row, default: []].append(id)
        pendingByRow[row]!.sort()
    }

    mutating func removePending(_ id: UInt64, from row: RowID) {
        pendingByRow[row]?.removeAll { $0 == id }
        if pendingByRow[row]?.isEmpty == true { pendingByRow[row] = nil }
    }

    /// The rows of a table with pending changes.
    func pendingRows(of table: String) -> [RowKey] {
        pendingByRow.keys.filter { $0.table == table }.map(\.key)
    }
}
