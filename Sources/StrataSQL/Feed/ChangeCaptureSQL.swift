import Foundation
import StrataCore

/// A table whose changes are captured: its key columns and its foreign-key ("links") columns,
/// database names, from the catalog.
package struct CaptureTable: Sendable, Hashable {
    package var name: String
    /// The row's identity, in key order (primary key, or the key a model file declares).
    package var key: [String]
    /// The columns of this table that reference another table (each once); empty when none.
    package var links: [String]

    package init(name: String, key: [String], links: [String]) {
        self.name = name
        self.key = key
        self.links = links
    }
}

/// The DDL of change capture (docs/design/CHANGE-FEED.md §1): the log, its metadata and the
/// triggers that fill it, for one service on one database.
///
/// The triggers call only built-in SQL: Strata's own SQLite functions
/// (`SQLiteCheckedArithmetic`) exist only on Strata's connections, and a trigger calling one would
/// make every other program's write fail. Names reach the text as quoted identifiers or as string
/// literals (``SQL/StringInterpolation/appendInterpolation(literal:)``), never values: stored
/// trigger text cannot take binds.
package struct ChangeCaptureSQL: Sendable {
    /// Raised when the triggers' text changes in a way a name comparison would not notice;
    /// recorded in the metadata row (`trigger_version`).
    package static let triggerVersion: Int64 = 1
    /// The PostgreSQL schema of every service's log and of `meta`.
    package static let feedSchema = "strata_feed"
    /// The channel the PostgreSQL triggers notify, with the service's name as payload.
    package static let notifyChannel = "strata_feed"
    /// SQLite's log and metadata tables in the service file.
    package static let sqliteLog = "_strata_changes"
    package static let sqliteMeta = "_strata_feed"

    package var dialect: SQLDialect
    /// The service: on PostgreSQL its log is `strata_feed."<service>"`.
    package var service: String
    /// The schema of the service's tables (PostgreSQL); nil on SQLite.
    package var schema: String?

    package init(dialect: SQLDialect, service: String, schema: String?) {
        self.dialect = dialect
        self.service = service
        self.schema = schema
    }

    /// The log table.
    package var log: TableName {
        dialect == .sqlite ? TableName(name: Self.sqliteLog) : TableName(schema: Self.feedSchema, name: service)
    }

    /// The metadata table (SQLite: one row; PostgreSQL: a row per service).
    package var meta: TableName {
        dialect == .sqlite ? TableName(name: Self.sqliteMeta) : TableName(schema: Self.feedSchema, name: "meta")
    }

    /// The service's own table.
    package func table(_ name: String) -> TableName {
        TableName(schema: schema, name: name)
    }

    /// The trigger names of a table, for insert, update, delete. SQLite's trigger names are
    /// per file, PostgreSQL's per table.
    package func triggerNames(of table: String) -> [String] {
        ["i", "u", "d"].map { dialect == .sqlite ? "strata_track_\(table)_\($0)" : "strata_track_\($0)" }
    }

    /// The PostgreSQL function the three triggers of a table call: `<service>.<table>`, or when
    /// that is longer than PostgreSQL's 63-byte names (which it would silently cut, so that two
    /// tables could share one function) its first characters and a hash of the whole.
    package func function(of table: String) -> TableName {
        let full = "\(service).\(table)"
        guard full.utf8.count > 63 else { return TableName(schema: Self.feedSchema, name: full) }
        return TableName(schema: Self.feedSchema, name: Self.prefix(full, bytes: 46) + "_" + Self.fnv1a(full))
    }

    /// The start of every function name of this service (``existingFunctions``).
    private var functionPrefix: String { Self.prefix("\(service).", bytes: 46) }

    private static func prefix(_ text: String, bytes: Int) -> String {
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= bytes else { break }
            result.append(character)
        }
        return result
    }

    /// 64-bit FNV-1a as 16 hex digits: stable across runs and machines, unlike `hashValue`.
    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    // MARK: - The log and its metadata

    /// Creates the log and the metadata (and on PostgreSQL the schema), each only if missing;
    /// the metadata row gets `epoch` only when it is created.
    package func createLog(epoch: [UInt8]) -> [SQL] {
        let epochValue = ODataValue.binary(.init(epoch))
        switch dialect {
        case .sqlite:
            return [
                """
                CREATE TABLE IF NOT EXISTS \(log) (position INTEGER PRIMARY KEY AUTOINCREMENT, txn INTEGER, \
                at INTEGER NOT NULL DEFAULT (strftime('%s', 'now')), tbl TEXT NOT NULL, op TEXT NOT NULL, key TEXT NOT NULL, links TEXT)
                """,
                """
                CREATE TABLE IF NOT EXISTS \(meta) (id INTEGER PRIMARY KEY CHECK (id = 1), epoch BLOB NOT NULL, \
                txn INTEGER NOT NULL DEFAULT 0, "open" INTEGER NOT NULL DEFAULT 0, horizon INTEGER NOT NULL DEFAULT 0, \
                trigger_version INTEGER NOT NULL, tracked_since INTEGER NOT NULL DEFAULT (strftime('%s', 'now')))
                """,
                "INSERT OR IGNORE INTO \(meta) (id, epoch, trigger_version) VALUES (1, \(bind: epochValue), \(Self.triggerVersion))",
            ]
        case .postgres:
            return [
                "CREATE SCHEMA IF NOT EXISTS \(identifier: Self.feedSchema)",
                """
                CREATE TABLE IF NOT EXISTS \(meta) (service text PRIMARY KEY, epoch bytea NOT NULL, \
                tracked_since timestamptz NOT NULL DEFAULT now(), horizon bigint, trigger_version integer NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS \(log) (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
                txn xid8 NOT NULL DEFAULT pg_current_xact_id(), at timestamptz NOT NULL DEFAULT now(), \
                tbl text NOT NULL, op text NOT NULL, key jsonb NOT NULL, links jsonb)
                """,
                "CREATE INDEX IF NOT EXISTS \(identifier: "\(service).txn") ON \(log) (txn)",
                """
                INSERT INTO \(meta) (service, epoch, trigger_version) VALUES (\(bind: .string(service)), \(bind: epochValue), \
                \(Self.triggerVersion)) ON CONFLICT (service) DO NOTHING
                """,
            ]
        }
    }

    /// Whether the log exists: one row when it does.
    package var logExists: SQL {
        switch dialect {
        case .sqlite:
            return "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = \(bind: .string(Self.sqliteMeta))"
        case .postgres:
            // The log and its row of `meta` are made and dropped together; the catalog is asked,
            // since naming a table that does not exist fails the statement.
            return """
                SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                WHERE n.nspname = \(bind: .string(Self.feedSchema)) AND c.relname = \(bind: .string(service)) AND c.relkind = 'r'
                """
        }
    }

    /// Whether the metadata table exists (PostgreSQL; SQLite's is ``logExists``): one row when it does.
    package var metaTableExists: SQL {
        "SELECT 1 WHERE to_regclass(\(bind: .string("\(Self.feedSchema).meta"))) IS NOT NULL"
    }

    /// The metadata: epoch (bytes), horizon (integer; SQLite: last pruned position, 0 for none;
    /// PostgreSQL: one past the highest pruned transaction, NULL for none), trigger_version.
    package var readMeta: SQL {
        switch dialect {
        case .sqlite: return "SELECT epoch, horizon, trigger_version FROM \(meta) WHERE id = 1"
        case .postgres: return "SELECT epoch, horizon, trigger_version FROM \(meta) WHERE service = \(bind: .string(service))"
        }
    }

    package var setTriggerVersion: SQL {
        switch dialect {
        case .sqlite: return "UPDATE \(meta) SET trigger_version = \(Self.triggerVersion) WHERE id = 1"
        case .postgres: return "UPDATE \(meta) SET trigger_version = \(Self.triggerVersion) WHERE service = \(bind: .string(service))"
        }
    }

    /// Drops the log and the metadata. On PostgreSQL the service's row of `meta` goes; the caller
    /// drops `meta` and the schema when no service is left (``dropFeedSchemaIfEmpty``).
    package var dropLog: [SQL] {
        switch dialect {
        case .sqlite:
            return ["DROP TABLE IF EXISTS \(log)", "DROP TABLE IF EXISTS \(meta)"]
        case .postgres:
            return ["DROP TABLE IF EXISTS \(log)", "DELETE FROM \(meta) WHERE service = \(bind: .string(service))"]
        }
    }

    /// PostgreSQL: `meta` and the schema once no service tracks anything (RESTRICT: anything else
    /// left in the schema keeps it).
    package var dropFeedSchemaIfEmpty: [SQL] {
        ["DROP TABLE \(meta)", "DROP SCHEMA \(identifier: Self.feedSchema) RESTRICT"]
    }

    /// How many services have a metadata row (PostgreSQL).
    package var metaRowCount: SQL {
        "SELECT count(*) FROM \(meta)"
    }

    // MARK: - SQLite's transaction counter (§2)

    /// The first statement of Strata's write transactions on a tracked SQLite file.
    package static let sqliteBeginTransaction: SQL = "UPDATE \"_strata_feed\" SET txn = txn + 1, \"open\" = 1 WHERE id = 1"
    /// The last statement before `COMMIT`: other programs' writes record no transaction.
    package static let sqliteEndTransaction: SQL = "UPDATE \"_strata_feed\" SET \"open\" = 0 WHERE id = 1"

    // MARK: - Triggers

    /// The triggers present: rows of (trigger name, table name, definition text). SQLite's text is
    /// the `CREATE TRIGGER` statement as written; PostgreSQL's the function body the trigger calls.
    package var existingTriggers: SQL {
        switch dialect {
        case .sqlite:
            return "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'strata\\_track\\_%' ESCAPE '\\'"
        case .postgres:
            return """
                SELECT t.tgname::text, c.relname::text, p.prosrc FROM pg_catalog.pg_trigger t \
                JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid \
                WHERE n.nspname = \(bind: .string(schema ?? service)) AND t.tgname LIKE 'strata\\_track\\_%' AND NOT t.tgisinternal
                """
        }
    }

    /// The PostgreSQL functions of this service's triggers: rows of (function name).
    package var existingFunctions: SQL {
        """
        SELECT p.proname::text FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace \
        WHERE n.nspname = \(bind: .string(Self.feedSchema)) \
        AND left(p.proname::text, \(bind: .int64(Int64(functionPrefix.unicodeScalars.count)))::integer) = \(bind: .string(functionPrefix))
        """
    }

    /// The text a trigger is compared with to tell whether it is current: what ``existingTriggers``
    /// returns for it (SQLite: each trigger's statement; PostgreSQL: the function body).
    package func definitions(of table: CaptureTable) -> [String: String] {
        switch dialect {
        case .sqlite:
            let names = triggerNames(of: table.name)
            let statements = sqliteTriggers(table)
            var definitions: [String: String] = [:]
            for (name, statement) in zip(names, statements) { definitions[name] = SQLStatement(statement, dialect: dialect).sql }
            return definitions
        case .postgres:
            let body = SQLStatement(postgresFunctionBody(table), dialect: dialect).sql
            return Dictionary(uniqueKeysWithValues: triggerNames(of: table.name).map { ($0, body) })
        }
    }

    /// Drops (if present) and creates the triggers of one table.
    package func createTriggers(_ table: CaptureTable) -> [SQL] {
        switch dialect {
        case .sqlite:
            return dropTriggers(table: table.name) + sqliteTriggers(table)
        case .postgres:
            let target = self.table(table.name)
            let function = function(of: table.name)
            let names = triggerNames(of: table.name)
            return [
                "CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS \(quoted: postgresFunctionBody(table))",
            ] + dropTriggers(table: table.name, keepFunction: true) + [
                """
                CREATE TRIGGER \(identifier: names[0]) AFTER INSERT ON \(target) REFERENCING NEW TABLE AS new_rows \
                FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
                """,
                """
                CREATE TRIGGER \(identifier: names[1]) AFTER UPDATE ON \(target) REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows \
                FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
                """,
                """
                CREATE TRIGGER \(identifier: names[2]) AFTER DELETE ON \(target) REFERENCING OLD TABLE AS old_rows \
                FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
                """,
            ]
        }
    }

    /// Drops the triggers of one table (and on PostgreSQL their function), each if present.
    package func dropTriggers(table: String, keepFunction: Bool = false) -> [SQL] {
        let names = triggerNames(of: table)
        switch dialect {
        case .sqlite:
            return names.map { "DROP TRIGGER IF EXISTS \(identifier: $0)" }
        case .postgres:
            let drops: [SQL] = names.map { "DROP TRIGGER IF EXISTS \(identifier: $0) ON \(self.table(table))" }
            return keepFunction ? drops : drops + ["DROP FUNCTION IF EXISTS \(function(of: table))()"]
        }
    }

    /// Drops a PostgreSQL function of this service by its name (one left by a dropped table).
    package func dropFunction(named name: String) -> SQL {
        "DROP FUNCTION IF EXISTS \(TableName(schema: Self.feedSchema, name: name))()"
    }

    // MARK: SQLite

    /// Three row triggers. Each inserts one log row per changed row; the update trigger also logs
    /// the old side when the key or a link column changed, so that the old key becomes a tombstone
    /// and the old parent is re-read. The transaction is the counter while Strata's transaction
    /// has it open, else NULL (another program's write).
    private func sqliteTriggers(_ table: CaptureTable) -> [SQL] {
        let names = triggerNames(of: table.name)
        let target = self.table(table.name)
        let columns: SQL = "(txn, tbl, op, key, links)"
        let txn: SQL = "(SELECT CASE WHEN \"open\" = 1 THEN txn END FROM \(meta) WHERE id = 1)"
        let newRow: SQL = "NEW."
        let oldRow: SQL = "OLD."
        let newKey = sqliteObject(table.key, row: newRow), newLinks = sqliteObject(table.links, row: newRow)
        let oldKey = sqliteObject(table.key, row: oldRow), oldLinks = sqliteObject(table.links, row: oldRow)
        let changed = SQL.joined((table.key + table.links).map { "OLD.\(identifier: $0) IS NOT NEW.\(identifier: $0)" }, separator: " OR ")
        return [
            """
            CREATE TRIGGER \(identifier: names[0]) AFTER INSERT ON \(target) BEGIN \
            INSERT INTO \(log) \(columns) VALUES (\(txn), \(literal: table.name), 'I', \(newKey), \(newLinks)); END
            """,
            """
            CREATE TRIGGER \(identifier: names[1]) AFTER UPDATE ON \(target) BEGIN \
            INSERT INTO \(log) \(columns) SELECT \(txn), \(literal: table.name), 'U', \(oldKey), \(oldLinks) WHERE \(changed); \
            INSERT INTO \(log) \(columns) VALUES (\(txn), \(literal: table.name), 'U', \(newKey), \(newLinks)); END
            """,
            """
            CREATE TRIGGER \(identifier: names[2]) AFTER DELETE ON \(target) BEGIN \
            INSERT INTO \(log) \(columns) VALUES (\(txn), \(literal: table.name), 'D', \(oldKey), \(oldLinks)); END
            """,
        ]
    }

    /// `json_object('k', NEW."k", …)`; a BLOB value as hex text, since `json_object` refuses BLOBs
    /// (which would fail the write). NULL for no columns.
    private func sqliteObject(_ names: [String], row: SQL) -> SQL {
        guard !names.isEmpty else { return "NULL" }
        let pairs = names.map { name -> SQL in
            "\(literal: name), CASE typeof(\(row)\(identifier: name)) WHEN 'blob' THEN hex(\(row)\(identifier: name)) ELSE \(row)\(identifier: name) END"
        }
        return "json_object(\(SQL.joined(pairs)))"
    }

    // MARK: PostgreSQL

    /// The body of a table's trigger function: one `INSERT … SELECT` per statement from its
    /// transition tables, and a notification when it logged anything. PL/pgSQL plans a statement
    /// when it first runs, so the branch naming `old_rows` is never planned for an insert trigger.
    private func postgresFunctionBody(_ table: CaptureTable) -> SQL {
        let columns: SQL = "(tbl, op, key, links)"
        let n: SQL = "n.", o: SQL = "o."
        let newKey = postgresObject(table.key, row: n), newLinks = postgresObject(table.links, row: n)
        let oldKey = postgresObject(table.key, row: o), oldLinks = postgresObject(table.links, row: o)
        let same = SQL.joined((table.key + table.links).map { "n.\(identifier: $0) IS NOT DISTINCT FROM o.\(identifier: $0)" }, separator: " AND ")
        return """
            BEGIN
            IF TG_OP = 'INSERT' THEN
            INSERT INTO \(log) \(columns) SELECT \(literal: table.name), 'I', \(newKey), \(newLinks) FROM new_rows n;
            ELSIF TG_OP = 'UPDATE' THEN
            INSERT INTO \(log) \(columns) SELECT \(literal: table.name), 'U', \(oldKey), \(oldLinks) FROM old_rows o \
            WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE \(same)) \
            UNION ALL SELECT \(literal: table.name), 'U', \(newKey), \(newLinks) FROM new_rows n;
            ELSE
            INSERT INTO \(log) \(columns) SELECT \(literal: table.name), 'D', \(oldKey), \(oldLinks) FROM old_rows o;
            END IF;
            IF FOUND THEN PERFORM pg_notify(\(literal: Self.notifyChannel), \(literal: service)); END IF;
            RETURN NULL;
            END
            """
    }

    private func postgresObject(_ names: [String], row: SQL) -> SQL {
        // Typed: in a UNION an untyped NULL would be text, which a jsonb column refuses.
        guard !names.isEmpty else { return "NULL::jsonb" }
        return "jsonb_build_object(\(SQL.joined(names.map { "\(literal: $0), \(row)\(identifier: $0)" })))"
    }
}
