import StrataCore

/// The caller's read access to every table one read touches — the tables of its path, those its
/// `$filter` and `$orderby` join and those its `$expand` reads — decided once, after parsing and
/// before planning, so that the planner only applies row filters and never asks the policy.
///
/// A handful of tables at most: a list searched in order costs less than a dictionary per request.
package struct ReadAccess: Sendable {
    private var tables: [(name: String, access: RowAccess)] = []

    mutating func add(_ table: String, _ access: RowAccess) {
        if !tables.contains(where: { $0.name == table }) { tables.append((table, access)) }
    }

    func decided(_ table: String) -> Bool {
        tables.contains { $0.name == table }
    }

    /// The row filter on `table`, nil for every row. A table that was not decided is a planner bug;
    /// it is refused rather than read unrestricted.
    package func rowFilter(_ table: String) throws(ODataError) -> BoundExpression? {
        guard let entry = tables.first(where: { $0.name == table }) else {
            throw .internalError()
        }
        return entry.access.filter
    }
}
