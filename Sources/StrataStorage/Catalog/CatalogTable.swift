import StrataCore
import StrataSQL

/// A table or view as the database's own catalog describes it, before it becomes an entity type.
package struct CatalogTable: Sendable, Hashable {
    /// The name in the database, exactly as the catalog spells it (`Order Details`).
    package var name: String
    package var isView: Bool
    package var columns: [CatalogColumn]
    package var primaryKey: [String]
    /// Column lists of unique constraints and unique indexes (besides the primary key).
    package var uniqueKeys: [[String]]
    package var foreignKeys: [CatalogForeignKey]
    /// The entity set (and entity type) name a service's model gives the table; nil serves it under
    /// its own name made an OData identifier (see <doc:Naming>). ``ModelBuilder`` refuses an
    /// explicit name that is not an identifier or that another set has.
    package var exposedName: String? = nil
    /// A key a model file declares for a view or a table without primary key; not enforced by the
    /// database, so the set stays read-only.
    package var declaredKey: [String]? = nil

    package func column(named name: String) -> CatalogColumn? {
        columns.first { $0.name == name }
    }
}

package struct CatalogColumn: Sendable, Hashable {
    /// The name in the database, exactly as the catalog spells it (`Unit Price`).
    package var name: String
    /// The type as declared in the database (`VARCHAR(50)`, `int4`), for messages and logs.
    package var declaredType: String
    /// The EDM type it maps to; nil when Strata cannot represent the column (it is then left out).
    package var type: EDMPrimitiveType?
    var isNullable: Bool
    var maxLength: Int?
    var isFixedLength: Bool = false
    var precision: Int?
    var scale: Int?
    var hasDefault: Bool
    /// Autoincrement, identity, serial or generated: the database produces the value.
    package var isServerGenerated: Bool
    /// The property name a service's model gives the column; nil serves it under its own name made
    /// an OData identifier. Refused by ``ModelBuilder`` when not an identifier or taken in the type.
    package var exposedName: String? = nil
    /// The roles that may read the column when a model file restricts it (administrators always
    /// may); nil for a column everyone who may read the table reads.
    package var readableBy: Set<String>? = nil
    /// How a SQLite date column holds its values when not in Strata's own form (read from a sample
    /// of them); nil on PostgreSQL, whose columns are real timestamps.
    package var dateForm: DateStorageForm? = nil
}

package struct CatalogForeignKey: Sendable, Hashable {
    /// The constraint name where the database has one (PostgreSQL); SQLite's are unnamed.
    var name: String?
    package var columns: [String]
    package var referencedTable: String
    package var referencedColumns: [String]
    /// The name of the navigation property on the referencing table that leads to the referenced
    /// row (`Orders.Customer`); nil names it after the referenced entity set.
    package var navigationName: String? = nil
    /// The name of the navigation property on the referenced table that leads to the referencing
    /// rows (`Customers.Orders`); nil names it after the referencing entity set.
    package var reverseNavigationName: String? = nil
    /// Declared in a model file rather than found in the database.
    package var isDeclared = false

    package init(name: String? = nil, columns: [String], referencedTable: String, referencedColumns: [String], navigationName: String? = nil, reverseNavigationName: String? = nil, isDeclared: Bool = false) {
        self.name = name
        self.columns = columns
        self.referencedTable = referencedTable
        self.referencedColumns = referencedColumns
        self.navigationName = navigationName
        self.reverseNavigationName = reverseNavigationName
        self.isDeclared = isDeclared
    }
}

/// Reads the catalog of one service's namespace.
package protocol CatalogReader: Sendable {
    func readTables(_ connection: any DatabaseConnection) async throws -> [CatalogTable]
}
