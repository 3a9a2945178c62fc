/// A failure reported by SQLite: its result code and message, and what Strata was doing.
///
/// The replica turns these into ``ReplicaError``s (``ReplicaError/Kind/storage`` for a full disk or
/// a file it cannot write, ``ReplicaError/Kind/damaged`` for a file that is not a replica database).
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_FULL`, `SQLITE_CORRUPT`, …).
    var code: Int32
    /// SQLite's message for it (`sqlite3_errmsg`), with what was being done.
    var message: String

    var description: String { message }

    /// The file is not an SQLite database, or its pages do not read back.
    var isDamage: Bool { code == SQLiteCode.notADatabase || code == SQLiteCode.corrupt }
}

/// The result codes the wrapper reacts to, spelled out because the C macros do not import as
/// `Int32` constants on every platform.
enum SQLiteCode {
    static let ok: Int32 = 0
    static let busy: Int32 = 5
    static let full: Int32 = 13
    static let corrupt: Int32 = 11
    static let notADatabase: Int32 = 26
    static let row: Int32 = 100
    static let done: Int32 = 101
}
