import Foundation
import StrataCore

/// The receipts of change sets sent with an `Idempotency-Key` (docs/design/OFFLINE-SYNC.md §2):
/// one row per applied change, written in the transaction that applied it, so a retried change set
/// finds exactly what was committed. SQLite keeps them in the service's file
/// (`_strata_receipts`, hidden from the catalog like every `_strata_` table); PostgreSQL in
/// `strata_sync."<service>"`.
package struct ChangeReceiptSQL: Sendable {
    /// The PostgreSQL schema of every service's receipts.
    package static let syncSchema = "strata_sync"
    package static let sqliteTable = "_strata_receipts"

    package var dialect: SQLDialect
    package var service: String

    package init(dialect: SQLDialect, service: String) {
        self.dialect = dialect
        self.service = service
    }

    package var table: TableName {
        dialect == .sqlite ? TableName(name: Self.sqliteTable) : TableName(schema: Self.syncSchema, name: service)
    }

    /// Creates the table (and on PostgreSQL the schema) when missing. `caller` and `key` name the
    /// change set, `change` the change's id in it; `fingerprint` is a hash of the whole request body,
    /// so a key reused for other changes is recognised; `result` the change's result as JSON.
    package var create: [SQL] {
        switch dialect {
        case .sqlite:
            return ["""
                CREATE TABLE IF NOT EXISTS \(table) (caller TEXT NOT NULL, key TEXT NOT NULL, change TEXT NOT NULL, \
                fingerprint BLOB NOT NULL, result TEXT NOT NULL, at INTEGER NOT NULL DEFAULT (strftime('%s', 'now')), \
                PRIMARY KEY (caller, key, change))
                """]
        case .postgres:
            return [
                "CREATE SCHEMA IF NOT EXISTS \(identifier: Self.syncSchema)",
                """
                CREATE TABLE IF NOT EXISTS \(table) (caller text NOT NULL, key text NOT NULL, change text NOT NULL, \
                fingerprint bytea NOT NULL, result text NOT NULL, at timestamptz NOT NULL DEFAULT now(), \
                PRIMARY KEY (caller, key, change))
                """,
            ]
        }
    }

    /// One row when the table exists.
    package var exists: SQL {
        switch dialect {
        case .sqlite: return "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = \(bind: .string(Self.sqliteTable))"
        case .postgres: return "SELECT 1 WHERE to_regclass(\(bind: .string("\(Self.syncSchema).\"\(service)\""))) IS NOT NULL"
        }
    }

    /// The receipts of one change set: change, fingerprint, result.
    package func read(caller: String, key: String) -> SQL {
        "SELECT change, fingerprint, result FROM \(table) WHERE caller = \(bind: .string(caller)) AND key = \(bind: .string(key))"
    }

    package func insert(caller: String, key: String, change: String, fingerprint: [UInt8], result: String) -> SQL {
        """
        INSERT INTO \(table) (caller, key, change, fingerprint, result) VALUES (\(bind: .string(caller)), \(bind: .string(key)), \
        \(bind: .string(change)), \(bind: .binary(.init(fingerprint))), \(bind: .string(result)))
        """
    }

    /// Deletes the receipts older than `seconds`.
    package func prune(olderThan seconds: Int64) -> SQL {
        switch dialect {
        case .sqlite: return "DELETE FROM \(table) WHERE at < CAST(strftime('%s', 'now') AS INTEGER) - \(bind: .int64(seconds))"
        case .postgres: return "DELETE FROM \(table) WHERE at < now() - make_interval(secs => \(bind: .int64(seconds)))"
        }
    }
}
