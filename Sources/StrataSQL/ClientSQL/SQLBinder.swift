import Foundation
import StrataCore

/// Collects bound values while SQL text is written, handing out the placeholder for each: the one
/// binder of every statement Strata writes (see ``SQLRenderer``).
///
/// Checked client SQL binds an equal value once on PostgreSQL and reuses its `$n`: PostgreSQL
/// matches `GROUP BY` expressions against the select list structurally, and `UPPER(x) || $1` only
/// matches `UPPER(x) || $1`, not `… || $3`. The OData planner binds every value where it appears,
/// so that each placeholder takes its type from its own column (an index stays usable). SQLite's
/// `?` are positional, so there every value is bound where it appears.
public struct SQLBinder: Sendable {
    /// The database whose placeholder syntax the binder writes.
    public let dialect: SQLDialect
    /// The values bound so far, in placeholder order.
    public private(set) var binds: [ODataValue] = []
    private let reusesEqualValues: Bool
    private var positions: [ODataValue: Int] = [:]

    public init(dialect: SQLDialect, reusingEqualValues: Bool = false) {
        self.dialect = dialect
        self.reusesEqualValues = reusingEqualValues && dialect == .postgres
    }

    /// Binds a value and returns the placeholder to write in its place: `?` or `$n`.
    public mutating func placeholder(for value: ODataValue) -> String {
        if reusesEqualValues, let position = positions[value] { return "$\(position)" }
        binds.append(value)
        if reusesEqualValues { positions[value] = binds.count }
        return dialect.placeholder(binds.count)
    }
}

/// The server's hook for what stands for a table: a `SELECT` of the table's catalog columns by
/// their names (which may filter rows the caller may not see) to have the table emitted as
/// `(<select>) AS "t1"`, or nil to read the catalog table directly as `"Table" AS "t1"`. Called
/// once per table reference, in `FROM`/`JOIN` order.
package typealias SQLTableSourceProvider = (_ table: SQLTableReference) throws(ODataError) -> SelectQuery?
