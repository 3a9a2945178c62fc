import Foundation
import StrataCore
import StrataSQL

/// Makes a service's database capture the changes its model asks for (docs/design/CHANGE-FEED.md
/// §1): the log, its metadata and the triggers of exactly the tracked tables.
///
/// Idempotent, and safe with several servers applying at once: everything runs in one transaction,
/// on PostgreSQL under a transaction-scoped advisory lock (one for the whole `strata_feed`
/// schema, which services share), on SQLite in the writer's `BEGIN IMMEDIATE`. Triggers whose
/// text is current are left alone, so that reloading a service takes no table lock.
package struct ChangeCapture: Sendable {
    let storage: ServiceStorage
    let sql: ChangeCaptureSQL

    package init(storage: ServiceStorage) {
        self.storage = storage
        sql = ChangeCaptureSQL(dialect: storage.database.dialect, service: storage.name, schema: storage.schema)
    }

    /// What applying changed, for logs and the command line.
    package struct Outcome: Sendable, Equatable {
        package var created: [String] = []
        package var dropped: [String] = []

        package init(created: [String] = [], dropped: [String] = []) {
            self.created = created
            self.dropped = dropped
        }
        package var logCreated = false
        package var logDropped = false
    }

    /// Creates or drops the log and triggers so that exactly `tables` are tracked (none: no log at
    /// all). A role that may not create triggers gets ``ChangeCaptureError``.
    @discardableResult
    package func apply(_ tables: [CaptureTable]) async throws -> Outcome {
        let sql = self.sql
        let service = storage.name
        let sqlite = storage.database as? SQLiteDatabase
        if tables.isEmpty {
            // The common case, every untracked service at every load: nothing to do, no write.
            let untouched = try await storage.database.read { connection in
                let log = try await connection.query(sql.logExists).rows
                let triggers = try await connection.query(sql.existingTriggers, types: [.string, .string, .string]).rows
                return log.isEmpty && triggers.isEmpty
            }
            if untouched {
                sqlite?.tracksChanges = false
                return Outcome()
            }
            // The counter's table is about to go.
            sqlite?.tracksChanges = false
        }
        let outcome: Outcome
        do {
            outcome = try await storage.database.transaction { connection in
                if sql.dialect == .postgres {
                    // One key for every service: they share the schema and `meta`.
                    try await connection.execute("SELECT pg_advisory_xact_lock(hashtext('strata_feed'))")
                }
                return try await Self.apply(tables, sql: sql, connection)
            }
        } catch StorageError.permissionDenied(let message) {
            throw ChangeCaptureError(service: service, message: message)
        } catch let error as StorageError where sql.dialect == .sqlite && "\(error)".contains("readonly") {
            throw ChangeCaptureError(service: service, message: "\(error)")
        }
        sqlite?.tracksChanges = !tables.isEmpty
        return outcome
    }

    private static func apply(_ tables: [CaptureTable], sql: ChangeCaptureSQL, _ connection: any DatabaseConnection) async throws -> Outcome {
        var outcome = Outcome()
        let logExists = try await !connection.query(sql.logExists).rows.isEmpty
        // PostgreSQL's `existingTriggers` reads only the catalog, so it answers without a log too.
        let existing = try await connection.query(sql.existingTriggers, types: [.string, .string, .string]).rows
        var present: [String: [String: String]] = [:]
        for row in existing {
            guard let name = row[0].stringValue, let table = row[1].stringValue else { continue }
            present[table, default: [:]][name] = row[2].stringValue ?? ""
        }
        let wanted = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for table in present.keys.sorted() where wanted[table] == nil {
            for statement in sql.dropTriggers(table: table) { try await connection.execute(statement) }
            outcome.dropped.append(table)
        }
        let metaExists = sql.dialect == .postgres ? try await !connection.query(sql.metaTableExists).rows.isEmpty : logExists
        if sql.dialect == .postgres, metaExists {
            // Functions left by tables dropped since (their triggers went with them).
            let wantedFunctions = Set(tables.map { sql.function(of: $0.name).name })
            for row in try await connection.query(sql.existingFunctions, types: [.string]).rows {
                guard let name = row[0].stringValue, !wantedFunctions.contains(name) else { continue }
                try await connection.execute(sql.dropFunction(named: name))
            }
        }
        guard !tables.isEmpty else {
            if logExists || sql.dialect == .postgres {
                try await dropLog(sql: sql, logExists: logExists, connection)
                outcome.logDropped = logExists
            }
            return outcome
        }
        if !logExists {
            for statement in sql.createLog(epoch: Self.newEpoch()) { try await connection.execute(statement) }
            outcome.logCreated = true
        }
        for table in tables.sorted(by: { $0.name < $1.name }) where present[table.name] != sql.definitions(of: table) {
            for statement in sql.createTriggers(table) { try await connection.execute(statement) }
            outcome.created.append(table.name)
        }
        try await connection.execute(sql.setTriggerVersion)
        return outcome
    }

    private static func dropLog(sql: ChangeCaptureSQL, logExists: Bool, _ connection: any DatabaseConnection) async throws {
        switch sql.dialect {
        case .sqlite:
            for statement in sql.dropLog { try await connection.execute(statement) }
        case .postgres:
            guard try await !connection.query(sql.metaTableExists).rows.isEmpty else { return }
            for statement in sql.dropLog { try await connection.execute(statement) }
            let remaining = try await connection.query(sql.metaRowCount, types: [.int64]).rows.first?.first?.integerValue ?? 0
            if remaining == 0 {
                for statement in sql.dropFeedSchemaIfEmpty { try await connection.execute(statement) }
            }
        }
    }

    /// 16 random bytes: a new epoch each time tracking is switched on, so that tokens of an earlier
    /// log (or another database, or a restored backup) are told apart.
    static func newEpoch() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Whether the file's log exists: a server that starts on a tracked SQLite file counts its
    /// transactions before any model is applied.
    static func isTracked(_ database: any Database, sql: ChangeCaptureSQL) async throws -> Bool {
        try await database.read { try await !$0.query(sql.logExists).rows.isEmpty }
    }
}

/// Tracking could not be switched on or off: the database refused (a role that may not create
/// triggers, a read-only file).
package struct ChangeCaptureError: Error, CustomStringConvertible {
    var service: String
    var message: String

    package var description: String {
        "Cannot change the tracking of service \(service): the database refused (\(message)). Tracking needs a database role that may create tables, functions and triggers."
    }
}
