import StrataCore
import StrataSQL
import StrataStorage

/// Applies the row filter an access rule returned (``RowAccess/filter``) to the queries that find
/// the rows a write may touch, through the read path's ``RowFilterSQL``.
///
/// Writes check the filter on the row before they change it (the caller may touch it at all) and
/// after (an insert or update may not move a row outside the caller's rows), inside the same
/// transaction, so a refused row rolls the whole write back.
enum RowFilter {
    /// Narrows `query`, whose target table has the alias `query.alias`, to the rows `access` allows.
    static func restrict(_ query: inout SelectQuery, to access: RowAccess, set: EntitySet, type: EntityType, storage: ServiceStorage) {
        guard let filter = access.filter else { return }
        query.filter(RowFilterSQL(storage: storage).condition(filter, alias: query.alias, set: set, type: type))
    }

    /// Whether checking `access` needs a query at all.
    static func isRestricted(_ access: RowAccess) -> Bool {
        access.filter != nil
    }
}
