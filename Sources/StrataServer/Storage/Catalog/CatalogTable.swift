import StrataCore

/// A table or view as the database's own catalog describes it, before it becomes an entity type.
struct CatalogTable: Sendable, Hashable {
    var name: String
    /// The entity set's name when a model file gives one; nil for the name derived from ``name``.
    var exposedName: String?
    var isView: Bool
    var columns: [CatalogColumn]
    var primaryKey: [String]
    /// Column lists of unique constraints and unique indexes (besides the primary key).
    var uniqueKeys: [[String]]
    /// A key a model file declares for a view or a table without primary key; not enforced by the
    /// database, so the set stays read-only.
    var declaredKey: [String]?
    var foreignKeys: [CatalogForeignKey]

    func column(named name: String) -> CatalogColumn? {
        columns.first { $0.name == name }
    }
}

struct CatalogColumn: Sendable, Hashable {
    var name: String
    /// The property's name when a model file gives one; nil for the name derived from ``name``.
    var exposedName: String?
    /// The type as declared in the database (`VARCHAR(50)`, `int4`), for messages and logs.
    var declaredType: String
    /// The EDM type it maps to; nil when Strata cannot represent the column (it is then left out).
    var type: EDMPrimitiveType?
    var isNullable: Bool
    var maxLength: Int?
    var isFixedLength: Bool = false
    var precision: Int?
    var scale: Int?
    var hasDefault: Bool
    /// Autoincrement, identity, serial or generated: the database produces the value.
    var isServerGenerated: Bool
}

struct CatalogForeignKey: Sendable, Hashable {
    /// The constraint name where the database has one (PostgreSQL); SQLite's are unnamed.
    var name: String?
    var columns: [String]
    var referencedTable: String
    var referencedColumns: [String]
    /// The navigation property on the referencing side, when a model file names it.
    var navigationName: String?
    /// The navigation property on the referenced side, when a model file names it.
    var reverseNavigationName: String?
    /// Declared in a model file rather than found in the database.
    var isDeclared = false
}

/// Reads the catalog of one service's namespace.
protocol CatalogReader: Sendable {
    func readTables(_ connection: any DatabaseConnection) async throws -> [CatalogTable]
}
