/// The database names behind a service model's OData names: the table of each entity set and the
/// column of each property, where they differ (`Order_Details` → `Order Details`).
///
/// StrataCore's model is the wire shared with clients and speaks OData names only; every statement
/// the server writes names tables and columns through this mapping instead (``ServiceStorage``
/// holds it: `storage.table(set.name)`, `storage.column(property, of: type)`). Names that are the
/// same on both sides are not stored, so a service whose names are all identifiers maps nothing
/// and every lookup finds an empty dictionary.
package struct StorageNames: Sendable, Hashable {
    /// Table names by entity set name.
    private var tables: [String: String] = [:]
    /// Column names by entity type name, then property name.
    private var columns: [String: [String: String]] = [:]

    init() {}

    /// The table or view behind an entity set.
    package func table(_ entitySet: String) -> String {
        tables.isEmpty ? entitySet : tables[entitySet] ?? entitySet
    }

    /// The column behind a property of an entity type.
    package func column(_ property: String, of entityType: String) -> String {
        columns.isEmpty ? property : columns[entityType]?[property] ?? property
    }

    /// True when every name is the same in OData and in the database.
    var isEmpty: Bool { tables.isEmpty && columns.isEmpty }

    mutating func setTable(_ table: String, of entitySet: String) {
        if table != entitySet { tables[entitySet] = table }
    }

    mutating func setColumn(_ column: String, of property: String, in entityType: String) {
        if column != property { columns[entityType, default: [:]][property] = column }
    }
}
