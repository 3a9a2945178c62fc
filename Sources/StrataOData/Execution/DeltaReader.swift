import StrataCore
import StrataSQL
import StrataStorage

/// Reads what changed in one entity set since a cursor, as the caller may see it now: the keys the
/// change log names in the window after the cursor, each read again through the caller's plan
/// (its `$filter`, `$select` and row filter). A key whose row exists and matches is an entity (an
/// insertion or a change: the client upserts); any other key is a deletion — gone, or moved out of
/// what this caller may read. Values are never taken from the log, so hidden columns and rows of
/// others never reach it, and a key change or an insert-then-delete need no special case.
///
/// The window and the rows are read in one snapshot (``Database/snapshot(_:)``).
package struct DeltaReader: Sendable {
    let service: ODataService
    /// The sets read, each with its read's plan (``ReadPlanner``), without a key condition.
    let targets: [Target]

    package init(service: ODataService, targets: [Target]) {
        self.service = service
        self.targets = targets
    }

    package struct Target: Sendable {
        package var set: EntitySet
        var type: EntityType
        package var plan: ReadPlan

        package init(set: EntitySet, type: EntityType, plan: ReadPlan) {
            self.set = set
            self.type = type
            self.plan = plan
        }
    }

    /// Keys per statement: bounded so that the bound parameters of one statement stay far below
    /// SQLite's and PostgreSQL's limits whatever the key width.
    package static let keysPerStatement = 1_000

    /// One page of a delta: per target, in the order of ``targets``.
    package struct Page: Sendable {
        package var tables: [Table]
        /// Where the window ends.
        package var end: ChangeCursor
        /// Keys of the window sent by this page and those before.
        package var sent: Int
        /// Whether keys of the window remain after this page.
        package var more: Bool

        /// No key changed in the window (the whole window, not only this page).
        package var isEmpty: Bool { sent == 0 && !more }

        package struct Table: Sendable {
            package var entities: [EntityRow] = []
            /// Keys, in key-property order, of the rows that went away for the caller.
            package var deleted: [[ODataValue]] = []
        }
    }

    /// Why a delta cannot be read; answered `410 Gone`.
    package enum Gone: Error, Equatable {
        /// Tracking was switched off, or restarted (another epoch), or the token is for another database.
        case trackingChanged
        /// Changes after the cursor were pruned.
        case pruned
    }

    /// The keys `sent ..< sent + pageSize` of the window after `cursor` (up to `windowEnd`, when the
    /// delta is being paged), in the log's order of table and key text (the database groups and
    /// orders them, ``ChangeLog/windowKeys(after:upTo:tables:limit:offset:_:)``), and their current rows.
    package func page(after cursor: ChangeCursor, windowEnd: ChangeCursor?, epoch: [UInt8], sent: Int, pageSize: Int) async throws -> Page {
        let log = ChangeLog(storage: service.storage)
        let storage = service.storage
        let tables = targets.map { storage.names.table($0.set.name) }
        return try await service.database.snapshot { connection in
            guard let info = try await log.info(connection), info.epoch == epoch, tables.allSatisfy(info.trackedTables.contains) else {
                throw Gone.trackingChanged
            }
            guard !log.isPruned(cursor, info: info) else { throw Gone.pruned }
            // One more than a page: whether the window goes on.
            let window = try await log.windowKeys(after: cursor, upTo: windowEnd, tables: Array(Set(tables)).sorted(), limit: pageSize + 1,
                                                  offset: sent, connection)
            let taken = window.keys.prefix(pageSize)
            var page = Page(tables: [], end: window.end, sent: sent + taken.count, more: window.keys.count > pageSize)
            for (index, target) in targets.enumerated() {
                let keyColumns = target.type.keyProperties.map { (property: $0, column: storage.column($0.name, of: target.type)) }
                var keys: [[ODataValue]] = []
                var existed = Set<[ODataValue]>()
                for change in taken where change.table == tables[index] {
                    let key = keyColumns.map { pair -> ODataValue in
                        let value = change.key[pair.column] ?? .null
                        return value.converted(to: pair.property.type) ?? value
                    }
                    keys.append(key)
                    if change.existed { existed.insert(key) }
                }
                page.tables.append(try await read(keys, target, existed: existed, connection))
            }
            return page
        }
    }

    /// The current rows of `keys` the plan lets through, and the keys it does not.
    /// A key whose row is not read is a deletion, unless the window only inserted it: then the row
    /// did not exist before the window, and the client never had it.
    private func read(_ keys: [[ODataValue]], _ target: Target, existed: Set<[ODataValue]>, _ connection: any DatabaseConnection) async throws -> Page.Table {
        guard !keys.isEmpty else { return Page.Table() }
        let (plan, type) = (target.plan, target.type)
        let keyPositions = type.keyProperties.map { key in plan.columns.firstIndex { $0.name == key.name }! }
        let columns = type.keyProperties.map { service.storage.column($0.name, of: type) }
        let types = plan.columns.map(\.type)
        var found: [[ODataValue]: EntityRow] = [:]
        var start = 0
        while start < keys.count {
            let chunk = keys[start ..< min(keys.count, start + Self.keysPerStatement)]
            start += chunk.count
            var query = plan.query
            query.filter(Self.condition(chunk, columns: columns))
            let rows = try await connection.query(SQLRenderer.render(query, dialect: connection.dialect), types: types)
            for row in rows.rows {
                let key = keyPositions.map { row[$0] }
                found[key] = EntityRow(values: row)
            }
        }
        var table = Page.Table()
        for key in keys {
            if let row = found[key] { table.entities.append(row) } else if existed.contains(key) { table.deleted.append(key) }
        }
        return table
    }

    /// `key IN (…)`, or for a composite key `(a = … AND b = …) OR …`.
    package static func condition(_ keys: ArraySlice<[ODataValue]>, columns: [String]) -> SQLTerm {
        let alias = PathPlanner.targetAlias
        if columns.count == 1 {
            return .inList(.column(alias: alias, name: columns[0]), keys.map { key in key[0].isNull ? .null : .value(key[0]) })
        }
        return .or(keys.map { key in
            .and(zip(columns, key).map { column, value in
                value.isNull ? .isNull(.column(alias: alias, name: column), negated: false) : .equals(.column(alias: alias, name: column), .value(value))
            })
        })
    }
}
