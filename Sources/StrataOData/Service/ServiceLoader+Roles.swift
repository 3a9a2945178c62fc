import StrataCore
import StrataStorage

extension ServiceLoader.Loaded {
    /// The roles a model file names in `readableBy`, over all columns; empty when no column is
    /// restricted.
    package var restrictingRoles: Set<String> {
        catalog.reduce(into: Set<String>()) { roles, table in
            for column in table.columns { roles.formUnion(column.readableBy ?? []) }
        }
    }

    /// The catalog a caller holding `roles` and knowing of the entity sets `sets` (nil: all) is
    /// served: without the columns restricted to roles it does not hold, without the tables of
    /// other sets, and without the foreign keys (so the navigation properties) that lead to them;
    /// nil when it may see everything (the full model serves it). Every name is pinned to the one
    /// the full model gives, so that an entity set, property or navigation property is called the
    /// same for every caller (a derived name could otherwise change when a column or table it
    /// collided with is left out).
    package func catalog(for roles: Set<String>, sets: Set<String>? = nil) -> [CatalogTable]? {
        let unreadable = { (column: CatalogColumn) in column.readableBy.map { $0.isDisjoint(with: roles) } ?? false }
        let setName = { (table: CatalogTable) in entitySet(of: table)?.name ?? table.exposedName ?? table.name }
        let kept = catalog.filter { table in sets.map { $0.contains(setName(table)) } ?? true }
        guard kept.count < catalog.count || catalog.contains(where: { $0.columns.contains(where: unreadable) }) else { return nil }
        let keptNames = Set(kept.map(\.name))
        return kept.map { table in
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
            pinned.foreignKeys.removeAll { !keptNames.contains($0.referencedTable) }
            pinned.columns.removeAll(where: unreadable)
            pinned.uniqueKeys.removeAll { key in key.contains { name in table.column(named: name).map(unreadable) ?? false } }
            return pinned
        }
    }
}
