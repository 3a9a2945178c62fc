import Foundation
#if canImport(Darwin)
internal import SQLite3
#else
internal import CStrataSQLite
#endif

/// One connection to an SQLite database file, through SQLite's C API.
///
/// Why SQLite's C API behind this small wrapper rather than a library such as GRDB: StrataClient
/// goes into iOS apps, which should fetch only what they use (no NIO, nothing of the server), and
/// the replica needs little of SQLite — prepare, bind, step and read columns, transactions, and an
/// authorizer for read-only queries (which also tells which tables a query reads, so that an
/// observed query runs again only when one of those changes). That is a few hundred lines over the SQLite
/// every platform has: the system's on Apple platforms, Debian's `libsqlite3` on Linux.
///
/// The connection is opened in WAL mode with `synchronous=FULL`: a committed transaction is on
/// disk when ``transaction(_:)`` returns, and a crash at any moment leaves the last committed one.
/// Statements are prepared once per text and kept (``prepared(_:)``).
///
/// Not thread-safe: one owner (the replica's actor) uses it at a time.
final class SQLiteConnection: @unchecked Sendable {
    // @unchecked: the handle is only used by the one actor that owns this object (``Replica``); no
    // method is called from two tasks at once.
    private var handle: OpaquePointer?
    /// The file's path, for messages.
    let path: String
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating) the database at `path`.
    /// - Throws: ``SQLiteError`` when the file cannot be opened or is not a database.
    init(path: String) throws(SQLiteError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard opened == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            handle = nil
            throw SQLiteError(code: opened, message: "cannot open \(path): \(message)")
        }
        sqlite3_extended_result_codes(db, 0)
        // Another connection to the file (a reader in another process) holds a lock for a moment:
        // wait for it instead of failing.
        sqlite3_busy_timeout(db, 5_000)
        // Reading the schema is the first read: a file that is not a database fails here, with its name.
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
    }

    deinit {
        close()
    }

    /// Finalizes the statements and closes the file; later calls fail.
    func close() {
        statements.values.forEach { $0.finalize() }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    // MARK: Statements

    /// Runs statements without results (schema changes, pragmas). `sql` is Strata's own text;
    /// identifiers in it are quoted with ``SQLiteIdentifier``.
    func execute(_ sql: String) throws(SQLiteError) {
        let db = try open()
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(db, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw SQLiteError(code: result, message: "\(text) (in \(path))")
        }
    }

    /// The statement for `sql`, prepared at its first use and kept, reset and with its bindings
    /// cleared. For Strata's own statements, whose texts are few.
    func prepared(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql, persistent: true)
        statements[sql] = statement
        return statement
    }

    /// A new statement the caller finalizes; only the first statement of `sql` is prepared, and
    /// ``SQLiteStatement/remainder`` holds the rest.
    /// - Parameter authorizer: consulted by SQLite for every table and column the statement touches.
    func prepare(_ sql: String, persistent: Bool = false, authorizer: SQLiteAuthorizer? = nil) throws(SQLiteError) -> SQLiteStatement {
        let db = try open()
        if let authorizer {
            sqlite3_set_authorizer(db, { context, action, first, second, _, _ in
                guard let context else { return SQLITE_OK }
                let authorizer = Unmanaged<SQLiteAuthorizer>.fromOpaque(context).takeUnretainedValue()
                return authorizer.allows(action: action, first.map { String(cString: $0) }, second.map { String(cString: $0) })
                    ? SQLITE_OK : SQLITE_DENY
            }, Unmanaged.passUnretained(authorizer).toOpaque())
        }
        defer { if authorizer != nil { sqlite3_set_authorizer(db, nil, nil) } }
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let utf8 = Array(sql.utf8CString)
        let result = utf8.withUnsafeBufferPointer { buffer in
            sqlite3_prepare_v3(db, buffer.baseAddress, Int32(buffer.count), persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, &tail)
        }
        guard result == SQLITE_OK, let statement else {
            if let authorizer, let denied = authorizer.denied { throw SQLiteError(code: result, message: denied) }
            throw SQLiteError(code: result, message: String(cString: sqlite3_errmsg(db)))
        }
        // What follows the first statement: a second statement, or only spaces and comments.
        let remainder = tail.map { String(cString: $0) } ?? ""
        return SQLiteStatement(statement, connection: self, remainder: remainder)
    }

    // MARK: Transactions

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// `BEGIN IMMEDIATE` takes the write lock first, so a transaction never fails halfway for
    /// want of it.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try transaction(body, failure: { $0 })
    }

    /// A transaction whose body fails with errors of its own kind (a download read as it goes in);
    /// SQLite's failures to begin or commit become that kind through `failure`.
    func transaction<T, Failure: Error>(_ body: () throws(Failure) -> T, failure: (SQLiteError) -> Failure) throws(Failure) -> T {
        do {
            try prepared("BEGIN IMMEDIATE").run()
        } catch {
            throw failure(error)
        }
        let value: T
        do {
            value = try body()
        } catch {
            try? prepared("ROLLBACK").run()
            throw error
        }
        do {
            try prepared("COMMIT").run()
        } catch {
            // After a failed COMMIT SQLite may have rolled back already; a second rollback then fails harmlessly.
            try? prepared("ROLLBACK").run()
            throw failure(error)
        }
        return value
    }

    // MARK: Internals

    func open() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: 21, message: "the database \(path) was closed") }
        return handle
    }

    /// The last error on this connection, for a statement's failure.
    func error(_ code: Int32, doing what: String) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
        return SQLiteError(code: code & 0xFF, message: "\(message) (\(what) in \(path))")
    }
}
