import Foundation
import StrataCore
import StrataSQL
import Synchronization
// The SQLite library that sqlite-nio bundles (its `sqlite_nio_`-prefixed C API). Strata calls it
// directly: sqlite-nio prepares every statement anew and hands every query to a thread pool and back
// through an event loop, three thread hops that cost more than a primary-key lookup itself.
import VaporCSQLite

/// One SQLite connection and its prepared statements.
///
/// Statements are prepared once per distinct SQL text and reset after each use; Strata's SQL text is
/// built from the catalog with every request value bound, so a service's statements repeat and the
/// cache stays small (it is emptied when it reaches ``statementLimit`` anyway).
///
/// `@unchecked Sendable`: a handle is only ever used by one borrower at a time. ``SQLiteDatabase``
/// keeps handles in a ``SQLiteHandlePool`` that lends each exclusively; the borrower runs statements
/// either on its own thread or on a thread-pool thread it awaits, never on two threads at once, and
/// the pool's lock orders each hand-over. That is exactly what SQLite's multi-thread mode asks
/// (`SQLITE_OPEN_NOMUTEX`: no connection used by two threads at once), so the connection skips the
/// mutex that serialized mode takes around every API call.
final class SQLiteHandle: @unchecked Sendable {
    private var connection: OpaquePointer?
    private var prepared: [String: PreparedStatement] = [:]
    let path: String
    /// Pages in the write-ahead log after the last commit through this connection. SQLite reports
    /// them through its WAL hook, which replaces its own checkpoint-on-commit: the owner checkpoints
    /// when ``checkpointDue`` says so, on a thread where a few milliseconds of copying are harmless.
    private var walPages: Int32 = 0

    /// The statement armed by ``arm()`` and still running (0: none), and why it was asked to stop.
    /// Another thread interrupts the connection only while holding this lock and only while the
    /// statement it means is the one running, so a late request never stops the next statement.
    private let running = Mutex(Running())
    private var generation: UInt64 = 0

    private struct Running {
        var statement: UInt64 = 0
        var stoppedBy: StatementWatch.Cause?
    }

    static let statementLimit = 256
    /// How long a statement waits for another connection's lock before failing.
    static let busyTimeout: Int32 = 10_000
    /// The WAL size at which a checkpoint is due (SQLite's default for its own automatic checkpoints).
    static let checkpointPages: Int32 = 1_000

    private struct PreparedStatement {
        let pointer: OpaquePointer
        let columns: [String]
    }

    init(path: String) throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "error \(status)"
            sqlite_nio_sqlite3_close_v2(handle)
            throw StorageError.unavailable("cannot open SQLite database \(path): \(message)")
        }
        connection = handle
        sqlite_nio_sqlite3_busy_timeout(handle, Self.busyTimeout)
        SQLiteCheckedArithmetic.register(on: handle)
        sqlite_nio_sqlite3_wal_hook(handle, { context, _, _, pages in
            // SQLite calls this inside a commit on the thread running it, which is the handle's borrower.
            if let context { Unmanaged<SQLiteHandle>.fromOpaque(context).takeUnretainedValue().walPages = pages }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Marks the next statement run through this handle as one that ``requestStop(_:_:)`` may stop;
    /// the mark lasts until that statement ends. Answers the statement's identity for stop requests.
    func arm() -> UInt64 {
        generation &+= 1
        let statement = generation
        running.withLock { $0 = Running(statement: statement) }
        return statement
    }

    /// Interrupts the armed statement `statement` (SQLite's `sqlite3_interrupt`, which is safe from
    /// any thread) and answers true while it has not ended; does nothing and answers false once it
    /// has. The lock keeps the call from landing after this statement ended.
    ///
    /// SQLite clears an interrupt when a statement starts its first step with none running, so one
    /// that lands between arming and that first step is lost: ``StatementWatch`` repeats it while
    /// the statement runs. The first cause is the one reported.
    @discardableResult
    func requestStop(_ statement: UInt64, _ cause: StatementWatch.Cause) -> Bool {
        running.withLock { running in
            guard running.statement == statement, let connection else { return false }
            if running.stoppedBy == nil { running.stoppedBy = cause }
            sqlite_nio_sqlite3_interrupt(connection)
            return true
        }
    }

    deinit {
        close()
    }

    /// Finalizes every statement and closes the connection; later calls fail.
    func close() {
        for statement in prepared.values { sqlite_nio_sqlite3_finalize(statement.pointer) }
        prepared.removeAll()
        if let connection {
            // The hook holds this object unretained; it must not outlive it inside a lingering connection.
            sqlite_nio_sqlite3_wal_hook(connection, nil, nil)
            sqlite_nio_sqlite3_close_v2(connection)
        }
        connection = nil
    }

    /// Runs `BEGIN IMMEDIATE` if no other connection holds the write lock; false (and no
    /// transaction) if one does. It never waits, so it may run on any thread.
    func beginImmediateWithoutWaiting() throws -> Bool {
        guard let connection else { throw StorageError.unavailable("the SQLite database \(path) is closed") }
        sqlite_nio_sqlite3_busy_timeout(connection, 0)
        defer { sqlite_nio_sqlite3_busy_timeout(connection, Self.busyTimeout) }
        do {
            try execute("BEGIN IMMEDIATE")
            return true
        } catch {
            if sqlite_nio_sqlite3_errcode(connection) & 0xff == SQLITE_BUSY { return false }
            throw error
        }
    }

    /// Whether a transaction is open (SQLite rolls one back by itself when a write in it is interrupted).
    var inTransaction: Bool {
        guard let connection else { return false }
        return sqlite_nio_sqlite3_get_autocommit(connection) == 0
    }

    /// Whether the write-ahead log has grown enough since the last checkpoint to copy it back.
    var checkpointDue: Bool { walPages >= Self.checkpointPages }

    /// Copies the write-ahead log into the database file as far as readers allow, without waiting for them.
    func checkpoint() throws {
        try execute("PRAGMA wal_checkpoint(PASSIVE)")
        walPages = 0
    }

    /// Runs a statement and decodes each column as the given type (nil: SQLite's own type); stops
    /// past `maxBytes` of values (``StatementLimits/maxResultBytes``).
    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?], maxBytes: Int? = nil) throws -> SQLRows {
        try run(statement) { prepared in
            let width = prepared.columns.count
            var rows: [[ODataValue]] = []
            var bytes = 0
            while try step(prepared.pointer) {
                var values: [ODataValue] = []
                values.reserveCapacity(width)
                for index in 0..<width {
                    let type = index < types.count ? types[index] : nil
                    values.append(try SQLiteValueCoding.decode(column(index, of: prepared.pointer), as: type,
                                                               column: prepared.columns[index]))
                }
                if let maxBytes {
                    bytes += SQLRows.bytes(of: values)
                    guard bytes <= maxBytes else { throw StorageError.resultTooLarge(maxBytes) }
                }
                rows.append(values)
            }
            return SQLRows(columns: rows.isEmpty ? [] : prepared.columns, rows: rows)
        }
    }

    /// Runs compiler-checked SQL whose rows are not needed.
    func execute(_ sql: SQL) throws {
        try execute(SQLStatement(sql, dialect: .sqlite))
    }

    /// Runs compiler-checked SQL.
    func query(_ sql: SQL, types: [EDMPrimitiveType?]) throws -> SQLRows {
        try query(SQLStatement(sql, dialect: .sqlite), types: types)
    }

    /// Runs a statement whose rows are not needed.
    func execute(_ statement: SQLStatement) throws {
        try run(statement) { prepared in
            while try step(prepared.pointer) {}
        }
    }

    /// Prepares (or takes from the cache) and binds `statement`, lets `body` step it, and resets it
    /// for its next use whatever happens.
    private func run<T>(_ statement: SQLStatement, _ body: (PreparedStatement) throws -> T) throws -> T {
        defer { running.withLock { $0.statement = 0 } }
        let prepared = try prepare(statement.sql)
        defer {
            sqlite_nio_sqlite3_reset(prepared.pointer)
            sqlite_nio_sqlite3_clear_bindings(prepared.pointer)
        }
        try bind(statement.binds, to: prepared.pointer)
        return try body(prepared)
    }

    // MARK: Statements

    private func prepare(_ sql: String) throws -> PreparedStatement {
        if let cached = prepared[sql] { return cached }
        guard let connection else { throw StorageError.unavailable("the SQLite database \(path) is closed") }
        var pointer: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = sql.withCString { text in
            let status = sqlite_nio_sqlite3_prepare_v3(connection, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, &tail)
            // Text after the first statement would be silently ignored: refuse it instead.
            if status == SQLITE_OK, let tail, tail.pointee != 0,
               !String(cString: tail).allSatisfy({ $0.isWhitespace || $0 == ";" }) {
                return SQLITE_MISUSE
            }
            return status
        }
        guard status == SQLITE_OK, let pointer else {
            let error = status == SQLITE_MISUSE ? StorageError.failed("SQLite: more than one statement in one call")
                                                : failure(status)
            sqlite_nio_sqlite3_finalize(pointer)
            throw error
        }
        let count = Int(sqlite_nio_sqlite3_column_count(pointer))
        let columns = (0..<count).map { index in
            sqlite_nio_sqlite3_column_name(pointer, Int32(index)).map { String(cString: $0) } ?? ""
        }
        let statement = PreparedStatement(pointer: pointer, columns: columns)
        if prepared.count >= Self.statementLimit {
            for old in prepared.values { sqlite_nio_sqlite3_finalize(old.pointer) }
            prepared.removeAll(keepingCapacity: true)
        }
        prepared[sql] = statement
        return statement
    }

    /// Advances to the next row; false when the statement is done.
    private func step(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite_nio_sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw failure(status)
        }
    }

    private func bind(_ values: [ODataValue], to statement: OpaquePointer) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch SQLiteValueCoding.encode(value) {
            case .null:
                status = sqlite_nio_sqlite3_bind_null(statement, index)
            case .integer(let integer):
                status = sqlite_nio_sqlite3_bind_int64(statement, index, integer)
            case .float(let double):
                status = sqlite_nio_sqlite3_bind_double(statement, index, double)
            case .text(let text):
                try StorageError.requireNoNUL(text)
                // The explicit length keeps any NUL characters inside the text.
                status = text.withCString {
                    sqlite_nio_sqlite3_bind_text64(statement, index, $0, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
                }
            case .blob(let data):
                status = data.withUnsafeBytes { bytes in
                    sqlite_nio_sqlite3_bind_blob64(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                                   UInt64(bytes.count), Self.transient)
                }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
    }

    private func column(_ index: Int, of statement: OpaquePointer) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite_nio_sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite_nio_sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .null
        }
    }

    /// SQLite copies bound text and blobs before the bind call returns (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    // MARK: Errors

    private func failure(_ status: Int32) -> StorageError {
        if status & 0xff == SQLITE_INTERRUPT, let stoppedBy = running.withLock({ $0.stoppedBy }) {
            switch stoppedBy {
            case .deadline(let limit): return .timedOut(limit)
            case .signal(.abandoned): return .cancelled
            case .signal(.shutdown): return .shuttingDown
            }
        }
        let message = connection.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error \(status)"
        return SQLiteErrorMapping.map(code: status, message: message)
    }
}

/// A value as SQLite stores it.
enum SQLiteValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case float(Double)
    case text(String)
    case blob(Data)

    var description: String {
        switch self {
        case .null: return "null"
        case .integer(let value): return String(value)
        case .float(let value): return String(value)
        case .text(let value): return "'\(value)'"
        case .blob(let value): return "a blob of \(value.count) bytes"
        }
    }
}

/// Turns SQLite result codes into storage errors that mean something to clients.
enum SQLiteErrorMapping {
    // Extended result codes (sqlite3.h defines them as expressions, which Swift does not import).
    static let primaryKey = SQLITE_CONSTRAINT | (6 << 8)
    static let unique = SQLITE_CONSTRAINT | (8 << 8)
    static let rowID = SQLITE_CONSTRAINT | (10 << 8)
    static let foreignKey = SQLITE_CONSTRAINT | (3 << 8)

    static func map(code: Int32, message: String) -> StorageError {
        switch code {
        case unique, primaryKey, rowID:
            return .uniqueViolation(constraint: nil, table: tableName(in: message), detail: message)
        case foreignKey:
            return .foreignKeyViolation(constraint: nil, table: nil, detail: message)
        case _ where code & 0xff == SQLITE_CONSTRAINT:
            return .constraintViolation(constraint: nil, table: tableName(in: message), detail: message)
        case _ where [SQLITE_CANTOPEN, SQLITE_NOTADB, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL].contains(code & 0xff):
            return .unavailable(message)
        case SQLITE_INTERRUPT:
            return .cancelled
        case _ where [SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH].contains(code & 0xff):
            return .permissionDenied(message)
        case _ where message == SQLiteCheckedArithmetic.overflowMessage:
            return .integerOverflow
        default:
            return .failed("SQLite: \(message) (code \(code))")
        }
    }

    /// SQLite names the column as `Table.column` in constraint messages.
    private static func tableName(in message: String) -> String? {
        guard let colon = message.lastIndex(of: ":") else { return nil }
        let tail = message[message.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return tail.split(separator: ".").first.map(String.init)
    }
}
