import StrataCore
import StrataSQL

/// A table or view as the database's own catalog describes it, before it becomes an entity type.
struct CatalogTable: Sendable, Hashable {
    var name: String
    var isView: Bool
    var columns: [CatalogColumn]
    var primaryKey: [String]
    /// Column lists of unique constraints and unique indexes (besides the primary key).
    var uniqueKeys: [[String]]
    var foreignKeys: [CatalogForeignKey]

    func column(named name: String) -> CatalogColumn? {
        columns.first { $0.name == name }
    }
}

struct CatalogColumn: Sendable, Hashable {
    var name: String
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
    /// How a SQLite date column holds its values when not in Strata's own form (read from a sample
    /// of them); nil on PostgreSQL, whose columns are real timestamps.
    var dateForm: DateStorageForm? = nil
}

struct CatalogForeignKey: Sendable, Hashable {
    /// The constraint name where the database has one (PostgreSQL); SQLite's are unnamed.
    var name: String?
    var columns: [String]
    var referencedTable: String
    var referencedColumns: [String]
}

/// Reads the catalog of one service's namespace.
protocol CatalogReader: Sendable {
    func readTables(_ connection: any DatabaseConnection) async throws -> [CatalogTable]
}
