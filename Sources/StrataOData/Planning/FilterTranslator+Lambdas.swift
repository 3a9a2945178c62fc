import StrataCore
import StrataSQL
import StrataStorage

/// What V4's lambdas and `Nav/$count` need to read related tables: storage names and the caller's
/// row filters, which the authorizer decided for every table the expression reaches
/// (``BoundQuery/navigationJoins``).
struct RelatedTables {
    let storage: ServiceStorage
    let access: ReadAccess

    /// The condition that the row of `set` at `alias` is one the caller may read, nil for every row.
    /// A table the authorizer did not decide reads as empty: never unrestricted by mistake.
    func visible(_ set: EntitySet, _ type: EntityType, alias: String) -> SQLTerm? {
        do {
            guard let filter = try access.rowFilter(set.name) else { return nil }
            return RowFilterSQL(storage: storage).condition(filter, alias: alias, set: set, type: type)
        } catch {
            return .alwaysFalse
        }
    }
}

/// Where the paths of an enclosing scope are, seen from inside a lambda's subquery.
struct EnclosingScope {
    var alias: String
    var typeName: String
    var joinAliases: [[String]: String]
}

/// V4's lambdas as correlated subqueries, so a collection is tested in the same statement (no query
/// per row): `any` is `EXISTS (SELECT 1 FROM related WHERE correlated AND visible AND predicate)`,
/// `all` is `NOT EXISTS (… AND NOT predicate)`, `$count` is `(SELECT COUNT(*) …)`. The related rows
/// are those the caller may read: rows a row filter hides are not members of the collection.
extension FilterTranslator {
    func lambdaCondition(_ lambda: BoundLambda) -> SQLTerm {
        guard let related, let collection = collectionQuery(lambda.collection, prefix: "l\(lambda.variableScope)_", related: related) else {
            return .alwaysFalse
        }
        var query = collection.query
        guard let predicate = lambda.predicate else { return .exists(query) }
        // The predicate's paths through single-valued navigation from the variable: left joins, a
        // row the caller may not see reading as missing, as in the outer statement.
        var chains: [[NavigationHop]] = []
        var seen: Set<[String]> = []
        for path in predicate.propertyPaths(inScope: lambda.variableScope) where !path.navigation.isEmpty {
            for length in 1...path.navigation.count {
                let prefix = Array(path.navigation.prefix(length))
                if seen.insert(prefix.map(\.property.name)).inserted { chains.append(prefix) }
            }
        }
        let joined = JoinBuilder(storage: related.storage, aliasPrefix: "\(collection.alias)_j")
            .joins(from: collection.alias, of: collection.type, chains: chains)
        for (index, table) in joined.tables.enumerated() {
            var join = joined.joins[index]
            if let visible = related.visible(table.set, table.type, alias: table.alias) { join.on = .and([join.on, visible]) }
            query.joins.append(join)
        }
        var nested = self
        nested.enclosing[scope] = EnclosingScope(alias: rootAlias, typeName: rootType, joinAliases: joinAliases)
        nested.scope = lambda.variableScope
        nested.rootAlias = collection.alias
        nested.rootType = collection.type.name
        nested.joinAliases = joined.aliases
        switch lambda.op {
        case .any:
            query.filter(nested.condition(predicate))
            return .exists(query)
        case .all:
            query.filter(.not(nested.boolean(predicate, exact: true)))
            return .not(.exists(query))
        }
    }

    /// `Nav/$count`: the number of related rows the caller may read.
    func count(_ path: BoundCollectionPath) -> SQLTerm {
        guard let related, var collection = collectionQuery(path, prefix: "c\(scope + 1)_", related: related)?.query else {
            return .template(["0"])
        }
        collection.items = [SelectColumn(expression: .template(["COUNT(*)"]))]
        return .subquery(collection)
    }

    /// `SELECT 1 FROM` the tables of the path's hops, inner-joined, correlated with the scope the
    /// path starts at, each restricted to the rows the caller may read; the alias and type of the
    /// collection's members.
    private func collectionQuery(_ path: BoundCollectionPath, prefix: String, related: RelatedTables)
        -> (query: SelectQuery, alias: String, type: EntityType)? {
        var previous: (alias: String, typeName: String)
        if path.scope == scope {
            previous = (rootAlias, rootType)
        } else if let outer = enclosing[path.scope] {
            previous = (outer.alias, outer.typeName)
        } else {
            return nil
        }
        let storage = related.storage
        var query: SelectQuery?
        for (index, hop) in path.hops.enumerated() {
            let alias = "\(prefix)\(index + 1)"
            let source = previous
            let on = SQLTerm.and(hop.property.joinColumns.map { pair in
                .equals(.column(alias: source.alias, name: storage.names.column(pair.local, of: source.typeName)),
                        .column(alias: alias, name: storage.names.column(pair.remote, of: hop.targetType.name)))
            })
            if var existing = query {
                existing.joins.append(JoinClause(kind: .inner, table: storage.table(hop.targetSet.name), alias: alias, on: on))
                query = existing
            } else {
                var first = SelectQuery(items: [SelectColumn(expression: .template(["1"]))], from: storage.table(hop.targetSet.name), alias: alias)
                first.filter(on)
                query = first
            }
            if let visible = related.visible(hop.targetSet, hop.targetType, alias: alias) { query?.filter(visible) }
            previous = (alias, hop.targetType.name)
        }
        guard let query, let last = path.hops.last else { return nil }
        return (query, previous.alias, last.targetType)
    }
}
