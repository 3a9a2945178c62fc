import StrataCore

/// Names given explicitly to a service's model (``CatalogTable/exposedName``,
/// ``CatalogColumn/exposedName``, ``CatalogForeignKey/navigationName`` and
/// ``CatalogForeignKey/reverseNavigationName``) that cannot be served: not OData identifiers, or
/// taken. Names Strata derives itself never fail; ``ModelBuilder`` reports every problem of a
/// model at once, so whoever set the names (a model file's loader) can point at each.
package struct ModelNamingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a problem is about, by database names.
    package enum Subject: Sendable, Hashable {
        case table(String)
        case column(table: String, column: String)
        /// A foreign key's navigation property: the one on the referencing `table` (`reverse`
        /// false) or the one on the referenced table (`reverse` true).
        case navigation(table: String, columns: [String], reverse: Bool)
    }

    package struct Problem: Sendable, Hashable, CustomStringConvertible {
        package var subject: Subject
        /// What is wrong and what to do, without the subject.
        var message: String

        package var description: String {
            switch subject {
            case .table(let table):
                return "The table \(table): \(message)"
            case .column(let table, let column):
                return "The column \(column) of \(table): \(message)"
            case .navigation(let table, let columns, let reverse):
                let end = reverse ? "the navigation to \(table)" : "the navigation from \(table)"
                return "The foreign key \(table)(\(columns.joined(separator: ", "))), \(end): \(message)"
            }
        }
    }

    package var problems: [Problem]

    package var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

/// A service's model as ``ModelBuilder`` makes it from the catalog: the OData model clients see,
/// and the database names behind it that the server's statements use.
package struct CatalogModel: Sendable {
    package var model: ServiceModel
    package var names: StorageNames
}
