import StrataCore

/// One row of a change log: a row of `table` was inserted, updated or deleted. Only its identity
/// is logged; the current values are read when the change is delivered (§1: "keys only").
package struct LoggedChange: Sendable, Hashable {
    package var position: Int64
    /// PostgreSQL's top-level transaction id (`xid8`); SQLite's transaction counter. nil: another
    /// program's write on SQLite, which has no counter.
    package var transaction: Int64?
    /// The database table name (not the entity set name).
    package var table: String
    /// Database column name → value, decoded with the catalog's column types so that it binds
    /// back equal in a `WHERE column = $1` (see ``ChangeLog``).
    package var key: [String: ODataValue]
    /// The foreign-key column values of that side of the change; empty when the table has none.
    var links: [String: ODataValue]
    /// What the statement did. Never decides what a reader gets (the current row does), except
    /// that a key only inserted in a window did not exist before it: a reader that cannot see its
    /// row now never had it, and needs no deletion.
    package var operation: Operation = .update

    package enum Operation: String, Sendable, Hashable {
        case insert = "I"
        case update = "U"
        case delete = "D"
    }
}
