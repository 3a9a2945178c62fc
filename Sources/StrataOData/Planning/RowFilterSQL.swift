import StrataCore
import StrataSQL
import StrataStorage

/// Turns an access rule's row filter (a bound `$filter` on a table's entity type) into a condition
/// on one aliased occurrence of that table in a statement.
package struct RowFilterSQL {
    let storage: ServiceStorage

    package init(storage: ServiceStorage) {
        self.storage = storage
    }

    /// The condition that the row at `alias` passes `filter`. A filter that follows navigation
    /// properties is checked in a correlated subquery with its own joins, so it never changes the
    /// shape of the outer statement.
    package func condition(_ filter: BoundExpression, alias: String, set: EntitySet, type: EntityType) -> SQLTerm {
        let dialect = storage.database.dialect
        let chains = Self.chains(in: filter)
        guard !chains.isEmpty else {
            return FilterTranslator(dialect: dialect, names: storage.names, rootAlias: alias, rootType: type.name,
                                    dateForms: storage.dateForms).condition(filter)
        }
        let inner = "\(alias)_rf"
        let joined = JoinBuilder(storage: storage, aliasPrefix: "\(inner)_j").joins(from: inner, of: type, chains: chains)
        var subquery = SelectQuery(items: [SelectColumn(expression: .template(["1"]), alias: nil)],
                                   from: storage.table(set.name), alias: inner)
        subquery.joins = joined.joins
        subquery.filter(.and(type.keyNames.map { key in
            let column = storage.column(key, of: type)
            return .equals(.column(alias: inner, name: column), .column(alias: alias, name: column))
        }))
        subquery.filter(FilterTranslator(dialect: dialect, names: storage.names, rootAlias: inner, rootType: type.name, joinAliases: joined.aliases,
                                         dateForms: storage.dateForms).condition(filter))
        return .exists(subquery)
    }

    /// Every navigation chain a filter uses, prefixes included, in order of first use.
    static func chains(in expression: BoundExpression) -> [[NavigationHop]] {
        var chains: [[NavigationHop]] = []
        var seen: Set<[String]> = []
        for path in expression.propertyPaths where !path.navigation.isEmpty {
            for length in 1...path.navigation.count {
                let prefix = Array(path.navigation.prefix(length))
                if seen.insert(prefix.map(\.property.name)).inserted { chains.append(prefix) }
            }
        }
        return chains
    }
}
