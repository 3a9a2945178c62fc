import StrataCore

extension ServiceLoader.Loaded {
    /// The roles a model file names in `readableBy`, over all columns; empty when no column is
    /// restricted.
    var restrictingRoles: Set<String> {
        catalog.reduce(into: Set<String>()) { roles, table in
            for column in table.columns { roles.formUnion(column.readableBy ?? []) }
        }
    }

    /// The catalog a caller holding `roles` is served: without the columns restricted to roles it
    /// does not hold; nil when it may read every column (the full model serves it). Every name is
    /// pinned to the one the full model gives, so that an entity set, property or navigation
    /// property is called the same for every caller (a derived name could otherwise change when a
    /// column it collided with is left out).
    func catalog(for roles: Set<String>) -> [CatalogTable]? {
        let unreadable = { (column: CatalogColumn) in column.readableBy.map { $0.isDisjoint(with: roles) } ?? false }
        guard catalog.contains(where: { $0.columns.contains(where: unreadable) }) else { return nil }
        return catalog.map { table in
            var pinned = table
            pinned.exposedName = entitySet(of: table)?.name ?? table.exposedName
            for index in pinned.columns.indices {
                pinned.columns[index].exposedName = propertyName(table.columns[index], in: table) ?? table.columns[index].exposedName
            }
            for index in pinned.foreignKeys.indices {
                guard let names = navigationNames(of: table.foreignKeys[index], from: table) else { continue }
                pinned.foreignKeys[index].navigationName = names.forward
                pinned.foreignKeys[index].reverseNavigationName = names.reverse
            }
            pinned.columns.removeAll(where: unreadable)
            pinned.uniqueKeys.removeAll { key in key.contains { name in table.column(named: name).map(unreadable) ?? false } }
            return pinned
        }
    }
}
