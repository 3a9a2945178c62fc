import Foundation
import StrataCore
import StrataSQL

/// What a service's change log says about itself.
package struct ChangeLogInfo: Sendable, Hashable {
    /// 16 random bytes, new each time tracking is switched on for the service.
    package var epoch: [UInt8]
    /// Database table names with triggers.
    package var trackedTables: Set<String>
    /// Cursors before this may have lost changes to pruning (nil: nothing pruned). SQLite: the last
    /// pruned position; PostgreSQL: a snapshot whose xmin is one past the highest pruned transaction.
    var horizon: ChangeCursor?
}

/// A read of a log: the changes after a cursor, and where to continue.
package struct ChangeWindow: Sendable {
    package var changes: [LoggedChange]
    /// The cursor to continue from.
    package var end: ChangeCursor
    /// False when `limit` cut the window: there are more changes before the window's bound.
    package var complete: Bool
}

/// A service's change log (docs/design/CHANGE-FEED.md §1–2): reading windows of it and pruning it.
/// The triggers that fill it are made by ``ChangeCapture``.
package struct ChangeLog: Sendable {
    let storage: ServiceStorage
    let sql: ChangeCaptureSQL
    private let decoding: ChangeLogDecoding

    package init(storage: ServiceStorage) {
        self.storage = storage
        sql = ChangeCaptureSQL(dialect: storage.database.dialect, service: storage.name, schema: storage.schema)
        decoding = ChangeLogDecoding(dialect: storage.database.dialect, columnTypes: storage.trackedColumnTypes)
    }

    /// nil when the service has no tracking (no log).
    package func info(_ connection: any DatabaseConnection) async throws -> ChangeLogInfo? {
        guard try await !connection.query(sql.logExists).rows.isEmpty else { return nil }
        guard let row = try await connection.query(sql.readMeta, types: [.binary, .int64, .int64]).rows.first else { return nil }
        guard case .binary(let epoch) = row[0] else { return nil }
        let triggers = try await connection.query(sql.existingTriggers, types: [.string, .string, .string])
        let tables = Set(triggers.rows.compactMap { $0[1].stringValue })
        var horizon: ChangeCursor?
        if let value = row[1].integerValue, value > 0 {
            horizon = sql.dialect == .sqlite ? .position(value) : .snapshot(PostgresSnapshot(xmin: UInt64(value), xmax: UInt64(value)))
        }
        return ChangeLogInfo(epoch: Array(epoch), trackedTables: tables, horizon: horizon)
    }

    /// The cursor "now" in this connection's snapshot (SQLite: the highest position taken;
    /// PostgreSQL: `pg_current_snapshot()`).
    package func current(_ connection: any DatabaseConnection) async throws -> ChangeCursor {
        let rows = try await connection.query(sql.currentCursor, types: [sql.dialect == .sqlite ? .int64 : .string])
        switch sql.dialect {
        case .sqlite:
            return .position(rows.rows.first?.first?.integerValue ?? 0)
        case .postgres:
            guard let text = rows.rows.first?.first?.stringValue, let snapshot = PostgresSnapshot(text: text) else {
                throw StorageError.failed("PostgreSQL returned no snapshot")
            }
            return .snapshot(snapshot)
        }
    }

    /// The changes after `cursor` visible in this connection's snapshot, ordered by position; when
    /// `upTo` is given, only those at or before it. At most `limit` changes, except that a
    /// transaction is never split: the window then ends after the transaction that reached the
    /// limit, `complete` is false and `end` says where to continue.
    package func window(after cursor: ChangeCursor, upTo: ChangeCursor?, limit: Int, _ connection: any DatabaseConnection) async throws -> ChangeWindow {
        let now = try await current(connection)
        switch (cursor, upTo ?? now) {
        case (.position(let after), .position(let bound)):
            return try await sqliteWindow(after: after, bound: bound, limit: max(1, limit), connection)
        case (.snapshot(let previous), .snapshot(let bound)):
            return try await postgresWindow(previous: previous, bound: bound, limit: max(1, limit), connection)
        default:
            throw StorageError.failed("a change cursor of another database")
        }
    }

    /// A key the log names in a window, with whether the row existed before it.
    package struct WindowKey: Sendable {
        package var table: String
        package var key: [String: ODataValue]
        /// False when every change of the key in the window was an insertion.
        package var existed: Bool
    }

    /// The distinct keys of `tables` changed after `cursor` (up to `upTo`, or up to this
    /// connection's snapshot), ordered by table and key text: those at `offset ..< offset + limit`
    /// of that order, and where the window ends. Deltas page through one window with this.
    package func windowKeys(after cursor: ChangeCursor, upTo: ChangeCursor?, tables: [String], limit: Int, offset: Int,
                    _ connection: any DatabaseConnection) async throws -> (keys: [WindowKey], end: ChangeCursor) {
        let bound: ChangeCursor
        if let upTo { bound = upTo } else { bound = try await current(connection) }
        let statement: SQL
        switch (cursor, bound) {
        case (.position(let after), .position(let end)):
            guard end > after else { return ([], .position(max(after, end))) }
            statement = sql.sqliteWindowKeys(after: after, upTo: end, tables: tables, limit: limit, offset: offset)
        case (.snapshot(let previous), .snapshot(let end)):
            statement = sql.postgresWindowKeys(previous: previous.text, end: end.text, tables: tables, limit: limit, offset: offset)
        default:
            throw StorageError.failed("a change cursor of another database")
        }
        let rows = try await connection.query(statement, types: [.string, .string, sql.dialect == .sqlite ? .int64 : .boolean])
        let keys = rows.rows.map { row in
            let table = row[0].stringValue ?? ""
            let existed = row[2] == .boolean(true) || (row[2].integerValue ?? 0) != 0
            return WindowKey(table: table, key: decoding.values(row[1].stringValue, table: table), existed: existed)
        }
        return (keys, bound)
    }

    /// Whether changes after `cursor` may have been pruned (the cursor is older than the horizon).
    package func isPruned(_ cursor: ChangeCursor, info: ChangeLogInfo) -> Bool {
        switch (cursor, info.horizon) {
        case (_, nil): return false
        case (.position(let position), .position(let horizon)?): return position < horizon
        // Every pruned transaction is below the horizon's xmin. A pruned transaction that started
        // after the cursor was taken (at or above its xmax) was never delivered: refused. One that
        // ran while the cursor was taken (in its xip) would have to have started longer ago than the
        // retention while the token is younger than it (older tokens are refused by age): a
        // transaction open for the whole retention, which is not guarded against. Comparing xmins
        // instead refused every cursor taken while any long transaction ran anywhere in the cluster.
        case (.snapshot(let snapshot), .snapshot(let horizon)?):
            return horizon.xmin > snapshot.xmax
        default: return true
        }
    }

    private static let rowTypes: [EDMPrimitiveType?] = [.int64, .int64, .string, .string, .string, .string]

    private func change(_ row: [ODataValue]) -> LoggedChange {
        let table = row[2].stringValue ?? ""
        return LoggedChange(position: row[0].integerValue ?? 0, transaction: row[1].integerValue, table: table,
                            key: decoding.values(row[3].stringValue, table: table), links: decoding.values(row[4].stringValue, table: table),
                            operation: LoggedChange.Operation(rawValue: row[5].stringValue ?? "") ?? .update)
    }

    private func sqliteWindow(after: Int64, bound: Int64, limit: Int, _ connection: any DatabaseConnection) async throws -> ChangeWindow {
        guard bound > after else { return ChangeWindow(changes: [], end: .position(max(after, bound)), complete: true) }
        var changes = try await connection.query(sql.sqliteWindow(after: after, upTo: bound, limit: limit), types: Self.rowTypes).rows.map(change)
        guard changes.count >= limit, let last = changes.last else {
            return ChangeWindow(changes: changes, end: .position(bound), complete: true)
        }
        if let txn = last.transaction {
            changes += try await connection.query(sql.sqliteRestOfTransaction(after: last.position, upTo: bound, txn: txn), types: Self.rowTypes)
                .rows.map(change)
        }
        let end = changes.last?.position ?? last.position
        return ChangeWindow(changes: changes, end: .position(end), complete: end >= bound)
    }

    /// A cut window ends at a snapshot that makes visible exactly the previous cursor's
    /// transactions plus those below a transaction id `cut` that are visible at the bound: the
    /// window's transactions are taken in id order until `limit` changes are reached.
    private func postgresWindow(previous: PostgresSnapshot, bound: PostgresSnapshot, limit: Int,
                                _ connection: any DatabaseConnection) async throws -> ChangeWindow {
        let transactions = try await connection.query(sql.postgresWindowTransactions(previous: previous.text, end: bound.text), types: [.int64, .int64])
        let total = transactions.rows.reduce(0) { $0 + Int($1[1].integerValue ?? 0) }
        guard total > limit else {
            let rows = try await connection.query(sql.postgresWindow(previous: previous.text, end: bound.text), types: Self.rowTypes)
            return ChangeWindow(changes: rows.rows.map(change), end: .snapshot(bound), complete: true)
        }
        var count = 0
        var lastIncluded: Int64 = 0
        for row in transactions.rows {
            guard let txn = row[0].integerValue else { continue }
            // Transactions running at the previous read come first (their ids are below its xmax).
            if count >= limit && UInt64(txn) >= previous.xmax { break }
            count += Int(row[1].integerValue ?? 0)
            lastIncluded = txn
        }
        let cut = max(previous.xmax, UInt64(lastIncluded) + 1)
        let end = PostgresSnapshot(xmin: min(bound.xmin, cut), xmax: cut, inProgress: bound.inProgress.filter { $0 < cut && $0 >= min(bound.xmin, cut) })
        let rows = try await connection.query(sql.postgresWindow(previous: previous.text, end: end.text), types: Self.rowTypes)
        return ChangeWindow(changes: rows.rows.map(change), end: .snapshot(end), complete: false)
    }

    // MARK: - Pruning

    /// Deletes the changes older than `retention`, oldest first, in batches of `batch` rows, each
    /// its own short transaction (writers wait at most one batch), raising the horizon after each.
    /// Answers how many changes were deleted.
    @discardableResult
    package func prune(olderThan retention: Duration, batch: Int = 5000) async throws -> Int {
        let seconds = retention.components.seconds
        var deleted = 0
        while true {
            let (count, full) = try await storage.database.transaction { connection -> (Int, Bool) in
                guard try await !connection.query(sql.logExists).rows.isEmpty else { return (0, false) }
                let rows = try await connection.query(sql.oldestChanges(olderThan: seconds, batch: batch), types: [.int64, .int64, .boolean])
                var boundary: Int64?
                var highestTxn: Int64 = 0
                var count = 0
                for row in rows.rows {
                    // Only the old prefix: `at` is not in position order on PostgreSQL (it is the
                    // transaction's start), and a newer change must not go with older ones.
                    guard row[2] == .boolean(true), let position = row[0].integerValue else { break }
                    boundary = position
                    highestTxn = max(highestTxn, row[1].integerValue ?? 0)
                    count += 1
                }
                guard let boundary else { return (0, false) }
                try await connection.execute(sql.deleteChanges(through: boundary))
                try await connection.execute(sql.raiseHorizon(to: sql.dialect == .sqlite ? boundary : highestTxn + 1))
                return (count, count == batch)
            }
            deleted += count
            if !full { return deleted }
        }
    }
}
