import StrataCore
import StrataSQL
import StrataStorage

/// Joins the tables that `$filter` and `$orderby` paths reach through single-valued navigation
/// (`PersonCar/Car/make`), one LEFT JOIN per distinct chain, shared by paths with the same prefix.
/// LEFT, because a missing related entity makes the path null, not the row disappear.
struct JoinBuilder {
    let storage: ServiceStorage
    /// Prefix for the aliases of joined tables, so that several builders in one statement don't clash.
    let aliasPrefix: String

    struct Result {
        var joins: [JoinClause]
        /// The alias of each chain's last table, by the chain's navigation property names.
        var aliases: [[String]: String]
        /// Each joined table with its alias, so that access rules can be applied to it.
        var tables: [(set: EntitySet, type: EntityType, alias: String)]
    }

    /// `rootType` is the entity type at `rootAlias`, where every chain starts.
    func joins(from rootAlias: String, of rootType: EntityType, chains: [[NavigationHop]]) -> Result {
        var result = Result(joins: [], aliases: [:], tables: [])
        for chain in chains {
            let names = chain.map(\.property.name)
            guard result.aliases[names] == nil, let hop = chain.last else { continue }
            let parentAlias = chain.count == 1 ? rootAlias : (result.aliases[Array(names.dropLast())] ?? rootAlias)
            let alias = "\(aliasPrefix)\(result.joins.count + 1)"
            let source = chain.count == 1 ? rootType : chain[chain.count - 2].targetType
            let on = SQLTerm.and(hop.property.joinColumns.map { pair in
                .equals(.column(alias: parentAlias, name: storage.column(pair.local, of: source)),
                        .column(alias: alias, name: storage.column(pair.remote, of: hop.targetType)))
            })
            result.joins.append(JoinClause(kind: .left, table: storage.table(hop.targetSet.name), alias: alias, on: on))
            result.aliases[names] = alias
            result.tables.append((hop.targetSet, hop.targetType, alias))
        }
        return result
    }
}
