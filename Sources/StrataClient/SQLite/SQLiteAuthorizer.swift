#if canImport(Darwin)
internal import SQLite3
#else
internal import CStrataSQLite
#endif

/// Decides, while a statement is prepared, what it may do: SQLite asks for every table it reads
/// and every other action (`sqlite3_set_authorizer`). The replica's read-only queries use it to
/// allow reading the replicated tables and nothing else, and to learn which tables a query reads,
/// the tables whose changes make an observed query run again.
final class SQLiteAuthorizer {
    /// May the statement read this table?
    private let readable: (String) -> Bool
    /// The tables the statement reads.
    private(set) var tablesRead: Set<String> = []
    /// Why the statement was refused, when it was.
    private(set) var denied: String?

    init(readable: @escaping (String) -> Bool) {
        self.readable = readable
    }

    /// SQLite's question: `action` with its two arguments (for a read: the table and the column).
    func allows(action: Int32, _ first: String?, _ second: String?) -> Bool {
        switch action {
        case SQLITE_READ:
            guard let table = first else { return true }
            guard readable(table) else {
                denied = denied ?? "a query reads the replica's own tables only; \(table) is not one of them"
                return false
            }
            tablesRead.insert(table)
            return true
        case SQLITE_SELECT, SQLITE_FUNCTION, SQLITE_RECURSIVE:
            return true
        default:
            denied = denied ?? "a query only reads (SELECT or WITH … SELECT); it cannot change the replica or its schema"
            return false
        }
    }
}
