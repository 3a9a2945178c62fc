import Foundation
import StrataCore

/// A table of rows fetched from a Strata service, with field definitions, local edits tracked per
/// row, and sorted and filtered views: the Data Abstract sample's `DADataTable`.
///
/// ```swift
/// var people = try await adapter.table("Person", where: "lastName eq 'Smith'")
/// let id = try people.addRow(["firstName": "Ann", "lastName": "Lee"])
/// try people.update(people.rows[0].id) { try $0.set("ssn", to: "123") }
/// for row in people.sorted(by: "lastName", "firstName") { print(row.firstName) }
/// try await adapter.applyChanges(&people)
/// ```
///
/// ## A value type
/// `DataTable` is a struct. A table is a snapshot of data plus local edits, and the copy rules of
/// a value make that easy to reason about: it is `Sendable` without locks, it can be handed to a
/// background task, saved in a ``Briefcase`` or kept as an undo point by plain assignment, and
/// `@State`/`@Observable` owners see every change. The Data Abstract sample's promise that a row exists once and
/// edits show everywhere is kept through row ids: the views (``sorted(by:)-(String...)``,
/// ``filtered(by:)``) return rows whose ``DataTableRow/id`` addresses the one row in the table,
/// and every change goes through the table (``update(_:_:)``, ``subscript(_:)``).
public struct DataTable: Sendable {
    /// The table's name: a service table, or `Query` for a SQL result spanning several tables.
    public let name: String
    let schema: DataTableSchema
    /// Every row, deleted ones included, in the order read and added.
    var storage: [DataTableRow]
    private var positions: [Int: Int]
    private var nextID: Int
    /// The next temporary key for an added row: -1, -2, …
    private var nextTemporaryKey: Int64

    /// A table with these fields and rows (as read from a server: every row unchanged).
    public init(name: String, fields: [DataTableField], rows: [[ODataValue]] = []) {
        self.name = name
        self.schema = DataTableSchema(fields: fields)
        self.storage = []
        self.positions = [:]
        self.nextID = 1
        self.nextTemporaryKey = -1
        storage.reserveCapacity(rows.count)
        for values in rows {
            let padded = values.count == fields.count ? values : Array((values + Array(repeating: .null, count: fields.count)).prefix(fields.count))
            append(DataTableRow(id: nextID, schema: schema, values: padded, isNew: false))
        }
    }

    /// A table from its compact form.
    public init(_ compact: CompactTable) {
        self.init(name: compact.name, fields: compact.fields, rows: compact.rows)
    }

    /// The field definitions, in order.
    public var fields: [DataTableField] { schema.fields }

    /// The field with this name.
    public func field(_ name: String) -> DataTableField? {
        schema.positions[name].map { schema.fields[$0] }
    }

    /// The rows that are not deleted, in the order read and added.
    public var rows: [DataTableRow] { storage.filter { !$0.isDeleted } }

    /// The rows in one state, such as the ``DataTableRow/State/deleted`` rows still to be sent.
    public func rows(_ state: DataTableRow.State) -> [DataTableRow] {
        storage.filter { $0.state == state }
    }

    /// The row with this id, deleted rows included; nil when the table has none.
    public subscript(_ id: DataTableRow.ID) -> DataTableRow? {
        positions[id].map { storage[$0] }
    }

    /// Whether any row is added, modified or deleted.
    public var hasChanges: Bool { storage.contains { $0.hasChanges && !($0.isNew && $0.isDeleted) } }

    /// Changes one row in place, as the Data Abstract sample's rows changed in every view at once.
    ///
    /// ```swift
    /// try people.update(id) { row in
    ///     try row.set("lastName", to: "Smyth")
    ///     row.revert("ssn")
    /// }
    /// ```
    /// - Returns: what `body` returns; nil when the table has no row with this id (it was cancelled
    ///   or its delete applied), so a stale id never changes another row.
    /// - Throws: what `body` throws (``DataTableError`` from ``DataTableRow/set(_:to:)``); the row
    ///   keeps the values it had before the throwing call.
    @discardableResult
    public mutating func update<T, E: Error>(_ id: DataTableRow.ID, _ body: (inout DataTableRow) throws(E) -> T) throws(E) -> T? {
        guard let position = positions[id] else { return nil }
        return try body(&storage[position])
    }

    /// Adds a new row; the next apply inserts it.
    ///
    /// Fields not given are null, except a server-generated integer key, which gets a temporary
    /// negative key (-1, -2, …) that the server replaces; other rows may use it as a foreign key to
    /// insert details with their new master in one apply.
    /// - Returns: the new row's id.
    /// - Throws: ``DataTableError`` when a value does not fit its field (as ``DataTableRow/set(_:to:)``).
    @discardableResult
    public mutating func addRow(_ values: [String: (any ODataValueConvertible)?] = [:]) throws(DataTableError) -> DataTableRow.ID {
        var initial = Array(repeating: ODataValue.null, count: fields.count)
        for (position, field) in fields.enumerated() where field.key && field.serverGenerated && field.type.isIntegral {
            initial[position] = ODataValue.int64(nextTemporaryKey).converted(to: field.type) ?? .null
        }
        var row = DataTableRow(id: nextID, schema: schema, values: initial, isNew: true)
        for (name, value) in values {
            let position = try schema.position(of: name)
            let field = fields[position]
            guard !field.serverGenerated else {
                throw DataTableError(.readOnlyField, "The field \(name) is generated by the server; leave it out of new rows.")
            }
            guard !field.readOnly else { throw DataTableError(.readOnlyField, "The field \(name) is read-only.") }
            row.values[position] = try DataTableRow.checked(value, for: field)
        }
        if fields.contains(where: { $0.key && $0.serverGenerated }) { nextTemporaryKey -= 1 }
        append(row)
        return row.id
    }

    /// Marks a row for deletion (see ``DataTableRow/delete()``).
    /// - Throws: ``DataTableError/Kind/invalidOperation`` for an id not in the table.
    public mutating func deleteRow(_ id: DataTableRow.ID) throws(DataTableError) {
        guard update(id, { $0.delete() }) != nil else {
            throw DataTableError(.invalidOperation, "The table \(name) has no row with id \(id).")
        }
    }

    /// Undoes every local change of one row: an added row is removed, any other row gets its
    /// original values back and is no longer deleted.
    public mutating func cancelChanges(of id: DataTableRow.ID) {
        guard let position = positions[id] else { return }
        if storage[position].isNew {
            remove([id])
        } else {
            storage[position].revert()
        }
    }

    /// Undoes every local change: added rows go, all other rows return to their original values.
    public mutating func cancelAllChanges() {
        remove(Set(storage.filter(\.isNew).map(\.id)))
        for index in storage.indices { storage[index].revert() }
    }

    // MARK: Views

    /// A sort key: a field and a direction.
    public struct SortKey: Sendable, Hashable, ExpressibleByStringLiteral {
        /// The field to sort by.
        public var field: String
        /// True for ascending order (nulls first), false for descending (nulls last).
        public var ascending: Bool

        /// A key on `field`, ascending unless told otherwise.
        public init(_ field: String, ascending: Bool = true) {
            self.field = field
            self.ascending = ascending
        }

        /// An ascending key written as the field's name: `sorted(by: "lastName")`.
        public init(stringLiteral field: String) {
            self.init(field)
        }

        /// A descending key: `.descending("createDate")`.
        public static func descending(_ field: String) -> SortKey { SortKey(field, ascending: false) }
    }

    /// The rows (not deleted) sorted by fields, nulls first ascending; ties keep table order.
    public func sorted(by keys: SortKey...) -> [DataTableRow] {
        sorted(by: keys)
    }

    /// The rows (not deleted) sorted by a list of fields.
    public func sorted(by keys: [SortKey]) -> [DataTableRow] {
        let positions = keys.compactMap { key in schema.positions[key.field].map { ($0, key.ascending) } }
        return rows.enumerated().sorted { a, b in
            for (position, ascending) in positions {
                let x = a.element.values[position], y = b.element.values[position]
                if DataTableOrdering.ascending(x, y) { return ascending }
                if DataTableOrdering.ascending(y, x) { return !ascending }
            }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The rows (not deleted) sorted by a closure.
    public func sorted(by areInIncreasingOrder: (DataTableRow, DataTableRow) throws -> Bool) rethrows -> [DataTableRow] {
        try rows.sorted(by: areInIncreasingOrder)
    }

    /// The rows (not deleted) a closure selects.
    public func filtered(by isIncluded: (DataTableRow) throws -> Bool) rethrows -> [DataTableRow] {
        try rows.filter(isIncluded)
    }

    /// The rows (not deleted) whose field has this value (compared as the field's type).
    public func filtered(by field: String, equals value: (any ODataValueConvertible)?) -> [DataTableRow] {
        guard let position = schema.positions[field] else { return [] }
        let wanted = (try? DataTableRow.checked(value, for: fields[position].relaxed)) ?? nil
        return rows.filter { $0.values[position] == wanted }
    }

    // MARK: Storage

    mutating func append(_ row: DataTableRow) {
        positions[row.id] = storage.count
        storage.append(row)
        nextID = max(nextID, row.id + 1)
    }

    mutating func remove(_ ids: Set<DataTableRow.ID>) {
        guard !ids.isEmpty else { return }
        storage.removeAll { ids.contains($0.id) }
        positions = Dictionary(uniqueKeysWithValues: storage.enumerated().map { ($1.id, $0) })
    }

    /// Restores a table with its rows exactly as saved (a briefcase): ids, states, originals.
    init(name: String, schema: DataTableSchema, rows: [DataTableRow], nextTemporaryKey: Int64) {
        self.name = name
        self.schema = schema
        self.storage = []
        self.positions = [:]
        self.nextID = 1
        self.nextTemporaryKey = nextTemporaryKey
        for row in rows { append(row) }
    }

    var temporaryKeyCounter: Int64 { nextTemporaryKey }

    /// The id the next appended row gets.
    var nextRowID: Int { nextID }
}

extension DataTableField {
    /// The field with no constraints but its type, for comparing values rather than storing them.
    var relaxed: DataTableField {
        DataTableField(name: name, type: type)
    }
}
