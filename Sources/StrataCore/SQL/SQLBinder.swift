import Foundation

/// Collects bound values while SQL text is written, handing out the placeholder for each.
///
/// The emitter and the server's table-source hook (``SQLTableSourceProvider``) write into the same
/// binder, so placeholders are numbered consistently across the whole statement. On PostgreSQL an
/// equal value is bound once and its `$n` reused: PostgreSQL matches `GROUP BY` expressions against
/// the select list structurally, and `UPPER(x) || $1` only matches `UPPER(x) || $1`, not `… || $3`.
/// SQLite's `?` are positional, so there every value is bound where it appears.
public struct SQLBinder: Sendable {
    /// The database whose placeholder syntax the binder writes.
    public let dialect: SQLDialectKind
    /// The values bound so far, in placeholder order.
    public private(set) var binds: [ODataValue] = []
    private var positions: [ODataValue: Int] = [:]

    public init(dialect: SQLDialectKind) {
        self.dialect = dialect
    }

    /// Binds a value and returns the placeholder to write in its place: `?` or `$n`.
    public mutating func placeholder(for value: ODataValue) -> String {
        switch dialect {
        case .sqlite:
            binds.append(value)
            return "?"
        case .postgres:
            if let position = positions[value] { return "$\(position)" }
            binds.append(value)
            positions[value] = binds.count
            return "$\(binds.count)"
        }
    }

    /// A name as a double-quoted identifier, quotes inside doubled.
    public static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// SQL text with its bound values, ready for the database driver.
public struct SQLEmittedQuery: Sendable, Hashable {
    /// The statement text, with placeholders instead of values.
    public var sql: String
    /// The values for the placeholders, in order: `?` by position on SQLite, `$n` is `binds[n - 1]` on PostgreSQL.
    public var binds: [ODataValue]

    public init(sql: String, binds: [ODataValue]) {
        self.sql = sql
        self.binds = binds
    }
}

/// The server's hook for the SQL that stands for a table: return a `SELECT` (which may filter rows
/// the caller may not see, binding its values through the binder) to have the table emitted as
/// `(<sql>) AS "t1"`, or nil to read the catalog table directly as `"Table" AS "t1"`. The hook is
/// called once per table reference, in `FROM`/`JOIN` order, and its SQL must return the table's
/// catalog columns by their names.
public typealias SQLTableSourceProvider = (_ table: SQLTableReference, _ binder: inout SQLBinder) throws(ODataError) -> String?
