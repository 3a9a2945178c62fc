import StrataCore

extension DataTable {
    /// What applying a delta did to a table.
    public struct DeltaOutcome: Sendable, Hashable {
        /// Rows that were not in the table and were added (unchanged).
        public var inserted = 0
        /// Unchanged rows that took the server's current values.
        public var updated = 0
        /// Rows removed because their key was deleted.
        public var removed = 0
        /// Rows the delta changed or deleted on the server that have local changes (modified or
        /// marked deleted here): left as they are, so that the next apply reports the conflict
        /// (their original values are what the local edit was based on) instead of losing the edit.
        public var keptLocalChanges: [DataTableRow.ID] = []

        /// Nothing done yet.
        public init() {}
    }

    /// Applies a delta of this table (``CompactTable/rows`` to upsert by key, ``CompactTable/deleted``
    /// keys to remove), as ``RemoteDataAdapter/changes(in:since:wait:)`` and a ``ChangeBatch``
    /// give them, without disturbing local work:
    ///
    /// - an unchanged row takes the server's values; a new key becomes an unchanged row;
    /// - a row with local changes (modified, or marked deleted) keeps its values and originals, and
    ///   is listed in ``DeltaOutcome/keptLocalChanges``: applying its change then meets the
    ///   server's row as a conflict to resolve, as any concurrent edit does. A row marked deleted
    ///   whose key the server deleted too is simply removed;
    /// - added rows (temporary keys) are never touched.
    ///
    /// Values are matched to this table's fields by name, so the delta's field order does not matter.
    /// - Throws: ``DataTableError/Kind/invalidOperation`` when the delta lacks a field of this table
    ///   or its key fields differ (the model changed: read the table again).
    @discardableResult
    public mutating func apply(_ delta: CompactTable) throws(DataTableError) -> DeltaOutcome {
        let incoming = Dictionary(delta.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var mapping: [Int] = []
        for field in fields {
            guard let position = incoming[field.name] else {
                throw DataTableError(.invalidOperation, "The changes of \(name) have no field \(field.name); the table changed on the server, read it again.")
            }
            mapping.append(position)
        }
        let localKeys = fields.indices.filter { fields[$0].key }
        guard !localKeys.isEmpty, localKeys.map({ fields[$0].name }) == delta.keyFields.map(\.name) else {
            throw DataTableError(.invalidOperation, "The changes of \(name) have the key fields \(delta.keyFields.map(\.name)), the table \(localKeys.map { fields[$0].name }); read it again.")
        }
        var byKey: [[ODataValue]: Int] = [:]
        byKey.reserveCapacity(storage.count)
        for (index, row) in storage.enumerated() where !row.isNew {
            byKey[localKeys.map { row.originalValues[$0] }] = index
        }
        var outcome = DeltaOutcome()
        var removing = Set<DataTableRow.ID>()
        for key in delta.deleted ?? [] {
            guard let index = byKey[key] else { continue }
            let row = storage[index]
            if row.state == .unchanged || row.isDeleted {
                removing.insert(row.id)
                byKey[key] = nil
                outcome.removed += 1
            } else {
                outcome.keptLocalChanges.append(row.id)
            }
        }
        for values in delta.rows {
            let row = mapping.map { $0 < values.count ? values[$0] : .null }
            let key = localKeys.map { row[$0] }
            if let index = byKey[key] {
                if storage[index].state == .unchanged {
                    var fresh = DataTableRow(id: storage[index].id, schema: schema, values: row, isNew: false)
                    fresh.error = nil
                    storage[index] = fresh
                    outcome.updated += 1
                } else {
                    outcome.keptLocalChanges.append(storage[index].id)
                }
            } else {
                append(DataTableRow(id: nextRowID, schema: schema, values: row, isNew: false))
                byKey[key] = storage.count - 1
                outcome.inserted += 1
            }
        }
        remove(removing)
        return outcome
    }
}

extension Briefcase {
    /// The ``properties`` entry where ``apply(_:)-(TableDelta)`` keeps the token to resume from.
    public static let deltaTokenProperty = "strata.deltaToken"

    /// The token the briefcase's tables are current to, kept in ``properties``; nil before the first tracked fetch.
    public var deltaToken: String? {
        get { properties[Self.deltaTokenProperty] }
        set { properties[Self.deltaTokenProperty] = newValue }
    }

    /// Applies a delta to the briefcase's tables (see ``DataTable/apply(_:)``) and records its
    /// token as ``deltaToken``; a table the briefcase does not hold yet is added.
    /// - Returns: each table's outcome, by name.
    @discardableResult
    public mutating func apply(_ delta: TableDelta) throws(DataTableError) -> [String: DataTable.DeltaOutcome] {
        let outcomes = try apply(delta.tables)
        deltaToken = delta.token
        return outcomes
    }

    /// Applies one batch of a change stream and records its token as ``deltaToken``.
    @discardableResult
    public mutating func apply(_ batch: ChangeBatch) throws(DataTableError) -> [String: DataTable.DeltaOutcome] {
        let outcomes = try apply(batch.tables)
        deltaToken = batch.token
        return outcomes
    }

    private mutating func apply(_ tables: [CompactTable]) throws(DataTableError) -> [String: DataTable.DeltaOutcome] {
        var outcomes: [String: DataTable.DeltaOutcome] = [:]
        // All tables are checked before any changes, so a refused delta leaves the briefcase as it was.
        var updated: [DataTable] = []
        for delta in tables {
            var table = self[delta.name] ?? DataTable(name: delta.name, fields: delta.fields)
            outcomes[delta.name] = try table.apply(delta)
            updated.append(table)
        }
        for table in updated { self[table.name] = table }
        return outcomes
    }
}
