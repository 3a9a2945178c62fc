import StrataCore

/// Reading and pruning a service's change log (docs/design/CHANGE-FEED.md §1–2). Every statement
/// returns the columns position, txn, tbl, key, links, with txn and position as integers and key
/// and links as JSON text.
extension ChangeCaptureSQL {
    /// SQLite: the highest position ever taken (AUTOINCREMENT's counter, which survives pruning).
    /// PostgreSQL: the statement's snapshot as text.
    package var currentCursor: SQL {
        switch dialect {
        case .sqlite: return "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = \(bind: .string(Self.sqliteLog))), 0)"
        case .postgres: return "SELECT pg_current_snapshot()::text"
        }
    }

    /// SQLite: the changes with `after < position <= upTo`, at most `limit`.
    package func sqliteWindow(after: Int64, upTo: Int64, limit: Int) -> SQL {
        """
        SELECT position, txn, tbl, key, links, op FROM \(log) WHERE position > \(bind: .int64(after)) AND position <= \(bind: .int64(upTo)) \
        ORDER BY position LIMIT \(limit)
        """
    }

    /// SQLite: the rest of one transaction after `position` (a transaction's positions are
    /// consecutive: it held the file's write lock while it took them).
    package func sqliteRestOfTransaction(after position: Int64, upTo: Int64, txn: Int64) -> SQL {
        """
        SELECT position, txn, tbl, key, links, op FROM \(log) WHERE position > \(bind: .int64(position)) AND position <= \(bind: .int64(upTo)) \
        AND txn = \(bind: .int64(txn)) ORDER BY position
        """
    }

    /// PostgreSQL: the changes of transactions invisible to `previous` and visible to `end`
    /// (snapshot texts), and when `beforeTxn` is given only those of transactions below it.
    package func postgresWindow(previous: String, end: String, beforeTxn: Int64? = nil) -> SQL {
        var sql: SQL = """
            SELECT position, txn::text::bigint, tbl, key::text, links::text, op FROM \(log) \
            WHERE txn >= pg_snapshot_xmin(\(bind: .string(previous))::pg_snapshot) \
            AND NOT pg_visible_in_snapshot(txn, \(bind: .string(previous))::pg_snapshot) \
            AND pg_visible_in_snapshot(txn, \(bind: .string(end))::pg_snapshot)
            """
        if let beforeTxn { sql += " AND txn < \(bind: .string(String(beforeTxn)))::xid8" }
        sql += " ORDER BY position"
        return sql
    }

    /// PostgreSQL: how many changes each transaction of the window has, in transaction order
    /// (to cut a long window at a transaction boundary).
    package func postgresWindowTransactions(previous: String, end: String) -> SQL {
        """
        SELECT txn::text::bigint, count(*) FROM \(log) \
        WHERE txn >= pg_snapshot_xmin(\(bind: .string(previous))::pg_snapshot) \
        AND NOT pg_visible_in_snapshot(txn, \(bind: .string(previous))::pg_snapshot) \
        AND pg_visible_in_snapshot(txn, \(bind: .string(end))::pg_snapshot) GROUP BY txn ORDER BY txn
        """
    }

    // MARK: - Distinct keys (deltas)

    /// SQLite: the distinct keys of `tables` changed in `after < position <= upTo`, one row per
    /// (tbl, key) with whether any of its changes was not an insertion (the row existed before
    /// the window), ordered by table and key text; rows `offset ..< offset + limit` of that order.
    /// The log is grouped by the database: a delta never decodes or sorts a key twice.
    package func sqliteWindowKeys(after: Int64, upTo: Int64, tables: [String], limit: Int, offset: Int) -> SQL {
        """
        SELECT tbl, key, max(op <> 'I') FROM \(log) WHERE position > \(bind: .int64(after)) AND position <= \(bind: .int64(upTo)) \
        AND tbl IN (\(SQL.binds(tables.map(ODataValue.string)))) GROUP BY tbl, key ORDER BY tbl, key LIMIT \(limit) OFFSET \(offset)
        """
    }

    /// PostgreSQL: ``sqliteWindowKeys(after:upTo:tables:limit:offset:)`` for the transactions
    /// invisible to `previous` and visible to `end` (snapshot texts); keys as JSON text.
    package func postgresWindowKeys(previous: String, end: String, tables: [String], limit: Int, offset: Int) -> SQL {
        """
        SELECT tbl, key::text, bool_or(op <> 'I') FROM \(log) \
        WHERE txn >= pg_snapshot_xmin(\(bind: .string(previous))::pg_snapshot) \
        AND NOT pg_visible_in_snapshot(txn, \(bind: .string(previous))::pg_snapshot) \
        AND pg_visible_in_snapshot(txn, \(bind: .string(end))::pg_snapshot) \
        AND tbl IN (\(SQL.binds(tables.map(ODataValue.string)))) GROUP BY tbl, key ORDER BY tbl, key::text LIMIT \(limit) OFFSET \(offset)
        """
    }

    // MARK: - Pruning

    /// The oldest `batch` changes: rows of (position, txn, whether older than `seconds`). The
    /// pruner deletes the longest old prefix, so no index on `at` is needed.
    package func oldestChanges(olderThan seconds: Int64, batch: Int) -> SQL {
        switch dialect {
        case .sqlite:
            return """
                SELECT position, COALESCE(txn, 0), at < CAST(strftime('%s', 'now') AS INTEGER) - \(bind: .int64(seconds)) \
                FROM \(log) ORDER BY position LIMIT \(batch)
                """
        case .postgres:
            return """
                SELECT position, txn::text::bigint, at < now() - make_interval(secs => \(bind: .int64(seconds))) \
                FROM \(log) ORDER BY position LIMIT \(batch)
                """
        }
    }

    /// Deletes the changes at or before `position`.
    package func deleteChanges(through position: Int64) -> SQL {
        "DELETE FROM \(log) WHERE position <= \(bind: .int64(position))"
    }

    /// Raises the horizon (SQLite: to the last pruned position; PostgreSQL: to one past the highest
    /// pruned transaction), never lowers it.
    package func raiseHorizon(to horizon: Int64) -> SQL {
        switch dialect {
        case .sqlite:
            return "UPDATE \(meta) SET horizon = max(horizon, \(bind: .int64(horizon))) WHERE id = 1"
        case .postgres:
            return """
                UPDATE \(meta) SET horizon = greatest(COALESCE(horizon, 0), \(bind: .int64(horizon))) \
                WHERE service = \(bind: .string(service))
                """
        }
    }
}
