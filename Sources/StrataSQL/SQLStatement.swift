import StrataCore

/// SQL text with its bound values, ready for a database driver.
///
/// Only this module makes one: from the SQL tree (``SQLRenderer``), from the compiler-checked
/// interpolation ``SQL`` (``init(_:dialect:)``), or from a script that ships with Strata
/// (``SQLScript``). Nothing outside StrataSQL can turn a `String` into a statement, so "no SQL text
/// from request input" is a property the compiler checks: values travel in ``binds``, names are
/// quoted catalog identifiers.
package struct SQLStatement: Sendable, CustomStringConvertible {
    /// The text, with `?` (SQLite) or `$n` (PostgreSQL) placeholders.
    package private(set) var sql: String
    /// The placeholders' values, in order.
    package private(set) var binds: [ODataValue]
    /// The statement reads or writes at most one row, found through its key (or inserts one row),
    /// so it is cheap enough to run on the calling thread (see `SQLiteSession`).
    package var touchesOneRow: Bool
    /// Set on statements whose text repeats across requests, with binds of the same types each time
    /// (one per entity set, say): a name under which a database may keep the statement prepared.
    /// Never set on text that varies per request, which would grow the database's statement cache
    /// without bound.
    package var reusableName: String?

    /// Text from this module's writers only (renderer, emitter, scripts).
    init(text: String, binds: [ODataValue], touchesOneRow: Bool = false, reusableName: String? = nil) {
        self.sql = text
        self.binds = binds
        self.touchesOneRow = touchesOneRow
        self.reusableName = reusableName
    }

    /// Renders compiler-checked SQL for one database.
    package init(_ sql: SQL, dialect: SQLDialect, touchesOneRow: Bool = false, reusableName: String? = nil) {
        var renderer = SQLRenderer(dialect: dialect)
        renderer.append(sql)
        self.init(text: renderer.text, binds: renderer.binds, touchesOneRow: touchesOneRow, reusableName: reusableName)
    }

    /// This statement marked as touching one row.
    package func oneRow() -> SQLStatement {
        var statement = self
        statement.touchesOneRow = true
        return statement
    }

    /// The same text with other values for its placeholders: a prepared statement run again.
    /// The values must be as many, and of the types, the text was written for.
    package func rebinding(_ binds: [ODataValue]) -> SQLStatement {
        var statement = self
        statement.binds = binds
        return statement
    }

    /// The database's plan for this statement instead of its rows: `EXPLAIN` on PostgreSQL,
    /// `EXPLAIN QUERY PLAN` on SQLite (one row per step, the detail in the last column).
    package func explained(for dialect: SQLDialect) -> SQLStatement {
        let prefix = dialect == .postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN "
        return SQLStatement(text: prefix + sql, binds: binds)
    }

    /// The SQL text only: bound values may be personal data and never go to logs.
    package var description: String { sql }
}

/// A query result: rows of values decoded as the EDM types the caller asked for.
package struct SQLRows: Sendable {
    package var columns: [String]
    package var rows: [[ODataValue]]

    package init(columns: [String], rows: [[ODataValue]]) {
        self.columns = columns
        self.rows = rows
    }
}
