import StrataCore
import StrataSQL

/// Reads what changed in one entity set since a cursor, as the caller may see it now: the keys the
/// change log names in the window after the cursor, each read again through the caller's plan
/// (its `$filter`, `$select` and row filter). A key whose row exists and matches is an entity (an
/// insertion or a change: the client upserts); any other key is a deletion — gone, or moved out of
/// what this caller may read. Values are never taken from the log, so hidden columns and rows of
/// others never reach it, and a key change or an insert-then-delete need no special case.
///
/// The window and the rows are read in one snapshot (``Database/snapshot(_:)``).
struct DeltaReader: Sendable {
    let service: ODataService
    /// The read's plan (``ReadPlanner``), without a key condition.
    let plan: ReadPlan
    let set: EntitySet
    let type: EntityType

    /// Keys per statement: bounded so that the bound parameters of one statement stay far below
    /// SQLite's and PostgreSQL's limits whatever the key width.
    static let keysPerStatement = 500

    /// One page of a delta.
    struct Page: Sendable {
        var entities: [EntityRow]
        /// Keys, in key-property order, of the rows that went away for the caller.
        var deleted: [[ODataValue]]
        /// Where the window ends.
        var end: ChangeCursor
        /// Keys of the window sent by this page and those before; equal to ``total`` on the last page.
        var sent: Int
        var total: Int
        var info: ChangeLogInfo
    }

    /// Why a delta cannot be read; answered `410 Gone`.
    enum Gone: Error, Equatable {
        /// Tracking was switched off, or restarted (another epoch), or the token is for another database.
        case trackingChanged
        /// Changes after the cursor were pruned.
        case pruned
    }

    /// The keys `sent ..< sent + pageSize` of the window after `cursor` (up to `windowEnd`, when the
    /// delta is being paged), and their current rows.
    func page(after cursor: ChangeCursor, windowEnd: ChangeCursor?, epoch: [UInt8], sent: Int, pageSize: Int) async throws -> Page {
        let log = ChangeLog(storage: service.storage)
        let table = service.storage.names.table(set.name)
        let keyColumns = type.keyProperties.map { (property: $0, column: service.storage.column($0.name, of: type)) }
        return try await service.database.snapshot { connection in
            guard let info = try await log.info(connection), info.epoch == epoch, info.trackedTables.contains(table) else {
                throw Gone.trackingChanged
            }
            guard !log.isPruned(cursor, info: info) else { throw Gone.pruned }
            let window = try await log.window(after: cursor, upTo: windowEnd, limit: .max, connection)
            var seen = Set<[ODataValue]>()
            var keys: [[ODataValue]] = []
            for change in window.changes where change.table == table {
                let key = keyColumns.map { pair -> ODataValue in
                    let value = change.key[pair.column] ?? .null
                    return value.converted(to: pair.property.type) ?? value
                }
                if seen.insert(key).inserted { keys.append(key) }
            }
            // One order for every page of the window, whatever order the log gave.
            keys.sort { Self.ordering($0, $1) }
            let start = min(sent, keys.count)
            let pageKeys = Array(keys[start ..< min(keys.count, start + pageSize)])
            let (entities, deleted) = try await read(pageKeys, connection)
            return Page(entities: entities, deleted: deleted, end: window.end, sent: start + pageKeys.count, total: keys.count, info: info)
        }
    }

    /// The current rows of `keys` the plan lets through, and the keys it does not.
    private func read(_ keys: [[ODataValue]], _ connection: any DatabaseConnection) async throws -> ([EntityRow], [[ODataValue]]) {
        guard !keys.isEmpty else { return ([], []) }
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
        var entities: [EntityRow] = []
        var deleted: [[ODataValue]] = []
        for key in keys {
            if let row = found[key] { entities.append(row) } else { deleted.append(key) }
        }
        return (entities, deleted)
    }

    /// `key IN (…)`, or for a composite key `(a = … AND b = …) OR …`.
    static func condition(_ keys: ArraySlice<[ODataValue]>, columns: [String]) -> SQLTerm {
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

    /// A total order of keys, the same in every process: by each value's text form.
    static func ordering(_ lhs: [ODataValue], _ rhs: [ODataValue]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            if let a = left.integerValue, let b = right.integerValue {
                if a != b { return a < b }
                continue
            }
            let a = String(describing: left), b = String(describing: right)
            if a != b { return a < b }
        }
        return lhs.count < rhs.count
    }
}
