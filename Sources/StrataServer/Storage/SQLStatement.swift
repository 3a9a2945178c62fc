import StrataCore

/// SQL text with its bound values. The text is assembled only from catalog identifiers and fixed
/// keywords; every value from a request travels in `binds`.
struct SQLStatement: Sendable, CustomStringConvertible {
    var sql: String
    var binds: [ODataValue]
    /// The statement reads or writes at most one row, found through its key (or inserts one row),
    /// so it is cheap enough to run on the calling thread (see `SQLiteSession`).
    var touchesOneRow: Bool
    /// Set on statements whose text repeats across requests, with binds of the same types each time
    /// (one per entity set, say): a name under which a database may keep the statement prepared.
    /// Never set on text that varies per request, which would grow the database's statement cache
    /// without bound.
    var reusableName: String?

    init(_ sql: String, binds: [ODataValue] = [], touchesOneRow: Bool = false, reusableName: String? = nil) {
        self.sql = sql
        self.binds = binds
        self.touchesOneRow = touchesOneRow
        self.reusableName = reusableName
    }

    /// This statement marked as touching one row.
    func oneRow() -> SQLStatement {
        var statement = self
        statement.touchesOneRow = true
        return statement
    }

    /// The SQL text only: bound values may be personal data and never go to logs.
    var description: String { sql }
}

/// A query result: rows of values decoded as the EDM types the caller asked for.
struct SQLRows: Sendable {
    var columns: [String]
    var rows: [[ODataValue]]
}
