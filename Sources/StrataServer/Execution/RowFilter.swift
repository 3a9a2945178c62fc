import StrataCore

/// Applies the row filter an access rule returned (``RowAccess/filter``) to the queries that find
/// the rows a write may touch.
///
/// The filter is a bound expression; turning it into SQL is the read path's filter translator's
/// job. Until that translator is wired in here, a write under a row-level rule is refused (403)
/// rather than allowed on rows the rule might exclude: access rules fail closed.
enum RowFilter {
    /// Narrows `query`, whose target table has the alias `query.alias`, to the rows `access` allows.
    static func restrict(_ query: inout SelectQuery, to access: RowAccess, action: TableAction, table: String) throws(ODataError) {
        guard access.filter != nil else { return }
        throw .forbidden("A row-level access rule applies to \(action.rawValue) on \(table), and this server cannot evaluate row rules for writes yet; the write was refused.")
    }

    /// Whether checking `access` needs a query at all.
    static func isRestricted(_ access: RowAccess) -> Bool {
        access.filter != nil
    }
}
