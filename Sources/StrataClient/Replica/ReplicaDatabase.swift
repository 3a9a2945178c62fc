import Foundation
import StrataCore

/// A replica's SQLite database, `replica.sqlite` in its directory: the replicated tables as the app
/// sees them, and Strata's own tables beside them.
///
/// - Each replicated table is a table of the same name with the server's columns, their SQL types
///   (``SQLiteColumnType``) and the key as primary key; it holds the rows as the app sees them —
///   the server's rows with the unsent local changes applied — so read-only SQL over the local
///   tables, joins included, sees local edits before they are sent.
/// - `strata.server.<table>` keeps the server's version of the rows that have local changes (and
///   of no others): what the row goes back to when its change is dropped, and what the next
///   change applies over.
/// - `strata.tables` the definitions (filter, conflict policy, indexes), fields and delta tokens;
///   `strata.outbox` the pending changes; `strata.batches` the batch being sent with its
///   idempotency key; `strata.meta` the format and the counters.
///
/// Strata's own tables have a dot in their names, which an OData entity set's name cannot have, so
/// they never meet a replicated table. Every step of a replica (a local edit, a downloaded table, a
/// delta, a seal, a push's results) is one transaction (``apply(_:to:initializing:)``).
final class ReplicaDatabase: @unchecked Sendable {
    // @unchecked: used by the one actor that owns it (``Replica``), one call at a time.
    static let fileName = "replica.sqlite"
    /// Bumped when the layout changes in a way older code cannot read.
    static let format: Int64 = 1

    let connection: SQLiteConnection
    let path: String
    /// Per table, its statements' texts (they change with its fields).
    var statements: [String: ReplicaTableSQL] = [:]

    static let meta = SQLiteIdentifier("strata.meta")
    static let tables = SQLiteIdentifier("strata.tables")
    static let outbox = SQLiteIdentifier("strata.outbox")
    static let batches = SQLiteIdentifier("strata.batches")

    /// The table holding the server's version of rows with local changes.
    static func serverTable(_ name: String) -> SQLiteIdentifier { SQLiteIdentifier("strata.server." + name) }

    /// Opens (creating) the database in `directory`.
    /// - Throws: ``ReplicaError/Kind/damaged`` naming the file when it is not a replica's database.
    init(directory: URL) throws(ReplicaError) {
        path = directory.appendingPathComponent(Self.fileName).path
        do {
            connection = try SQLiteConnection(path: path)
        } catch {
            throw Self.replicaError(error, path: directory.appendingPathComponent(Self.fileName).path)
        }
    }

    func close() {
        connection.close()
    }

    /// The error the app sees for a database failure: damage names the file and what to do, a full
    /// disk or an unwritable file is ``ReplicaError/Kind/storage``.
    static func replicaError(_ error: SQLiteError, path: String) -> ReplicaError {
        if error.isDamage {
            return ReplicaError(.damaged, "\(path) is not a replica's database or is damaged (\(error.message)); delete the replica's directory to download it again")
        }
        if error.code == SQLiteCode.full {
            return ReplicaError(.storage, "the disk is full: \(path) cannot grow (\(error.message)); nothing of the last step was written")
        }
        return ReplicaError(.storage, "the replica's database \(path) failed: \(error.message)")
    }

    func replicaError(_ error: SQLiteError) -> ReplicaError { Self.replicaError(error, path: path) }

    // MARK: Schema

    /// Whether the database holds a replica: Strata's tables with a format it reads. False for an
    /// empty, new database (or one whose first transaction never committed).
    /// - Throws: ``ReplicaError/Kind/damaged`` for another application's database or a newer format.
    func holdsReplica() throws(ReplicaError) -> Bool {
        do {
            let names = try connection.prepared("SELECT name FROM sqlite_master WHERE type = 'table'")
            var tables: Set<String> = []
            while try names.step() { if let name = names.text(0) { tables.insert(name) } }
            if tables.isEmpty { return false }
            guard tables.contains(Self.meta.name) else {
                throw ReplicaError(.damaged, "\(path) is an SQLite database of something else (it has no \(Self.meta.name)); move it out of the replica's directory")
            }
            let format = try connection.prepared("SELECT value FROM \(Self.meta) WHERE name = 'format'")
            defer { format.reset() }
            guard try format.step(), let version = format.integer(0) else {
                // Created, but the first transaction never committed: start over.
                return false
            }
            guard version <= Self.format else {
                throw ReplicaError(.damaged, "\(path) was written by a newer Strata (format \(version)); open it with that version")
            }
            return true
        } catch let error as SQLiteError {
            throw replicaError(error)
        } catch let error as ReplicaError {
            throw error
        } catch {
            throw ReplicaError(.storage, "\(error)")
        }
    }

    /// Strata's tables, in the transaction that writes the replica's first state.
    func createSchema() throws(SQLiteError) {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(Self.meta) (name TEXT PRIMARY KEY, value);
            CREATE TABLE IF NOT EXISTS \(Self.tables) (name TEXT PRIMARY KEY, position INTEGER NOT NULL, filter TEXT,
                conflicts TEXT NOT NULL, indexes TEXT NOT NULL, fields TEXT, token TEXT);
            CREATE TABLE IF NOT EXISTS \(Self.outbox) (id INTEGER PRIMARY KEY, change TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS \(Self.batches) (key TEXT PRIMARY KEY, ids TEXT NOT NULL);
            """)
        let format = try connection.prepared("INSERT OR REPLACE INTO \(Self.meta) (name, value) VALUES ('format', ?)")
        try format.bind(Self.format, at: 1)
        try format.run()
    }

    // MARK: Loading

    /// The state the database holds, with the table definitions it was written under.
    func load() throws(ReplicaError) -> ReplicaState {
        do {
            var definition: [ReplicaTable] = []
            var stored: [ReplicaState.Table] = []
            let tables = try connection.prepared("SELECT name, filter, conflicts, indexes, fields, token FROM \(Self.tables) ORDER BY position")
            while try tables.step() {
                guard let name = tables.text(0), let conflicts = tables.text(2).flatMap(ConflictPolicy.init(rawValue:)) else {
                    throw ReplicaError(.damaged, "\(path) has a table definition without a name or policy; delete the replica's directory to download it again")
                }
                let indexes = try Self.readIndexes(tables.text(3) ?? "[]")
                let table = ReplicaTable(name, where: tables.text(1), conflicts: conflicts, indexes: indexes)
                definition.append(table)
                stored.append(ReplicaState.Table(definition: table, fields: try tables.text(4).map(Self.readFields) ?? [], token: tables.text(5)))
            }
            var state = ReplicaState(definition: definition)
            for table in stored { state.tables[table.definition.name] = table }
            let types: (String) -> [String: EDMPrimitiveType]? = { name in
                state.tables[name].map { Dictionary($0.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first }) }
            }
            let outbox = try connection.prepared("SELECT change FROM \(Self.outbox) ORDER BY id")
            while try outbox.step() {
                let json = try JSONValue.parse(Array((outbox.text(0) ?? "").utf8))
                let change = try ReplicaMutation.readPending(json, types: types)
                state.pending[change.id] = change
            }
            let batch = try connection.prepared("SELECT key, ids FROM \(Self.batches)")
            if try batch.step(), let key = batch.text(0), let ids = batch.text(1) {
                state.sealed = ReplicaState.Sealed(key: key, ids: ids.split(separator: ",").compactMap { UInt64($0) })
            }
            batch.reset()
            let counters = try connection.prepared("SELECT name, value FROM \(Self.meta) WHERE name IN ('nextChange', 'nextTemporaryKey')")
            while try counters.step() {
                switch counters.text(0) {
                case "nextChange": state.nextChange = UInt64(counters.integer(1) ?? 1)
                case "nextTemporaryKey": state.nextTemporaryKey = counters.integer(1) ?? -1
                default: break
                }
            }
            state.rebuildIndex()
            for name in state.order { if let table = state.tables[name], table.isDownloaded { statements[name] = ReplicaTableSQL(table) } }
            return state
        } catch let error as SQLiteError {
            throw replicaError(error)
        } catch let error as ReplicaError {
            throw error
        } catch {
            throw ReplicaError(.damaged, "\(path) does not read back (\(error)); delete the replica's directory to download it again")
        }
    }

    static func readFields(_ text: String) throws -> [DataTableField] {
        guard case .array(let items) = try JSONValue.parse(Array(text.utf8)) else { throw DataTableFormatError("the fields are not a list") }
        return try items.enumerated().map { index, item throws(DataTableFormatError) in try DataTableField(json: item, at: "fields[\(index)]") }
    }

    static func writeFields(_ fields: [DataTableField]) -> String {
        var writer = JSONWriter(capacity: 512)
        writer.beginArray()
        for field in fields { field.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func readIndexes(_ text: String) throws -> [[String]] {
        guard case .array(let items) = try JSONValue.parse(Array(text.utf8)) else { throw DataTableFormatError("the indexes are not a list") }
        return items.map { item in
            guard case .array(let names) = item else { return [] }
            return names.compactMap(\.stringValue)
        }
    }

    static func writeIndexes(_ indexes: [[String]]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        for index in indexes {
            writer.beginArray()
            for name in index { writer.string(name) }
            writer.endArray()
        }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
