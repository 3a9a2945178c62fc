import StrataCore
import StrataSQL
import StrataStorage

/// Plans the SELECT that finds the entities a resolved path addresses.
///
/// The target table is `t0`. Each earlier step of the path joins in as `p1`, `p2`, … through the
/// navigation's join columns, and every key in the path becomes an equality on its step. Because
/// every step before the last addresses at most one entity, the joins never multiply rows.
package struct PathPlanner {
    let storage: ServiceStorage

    package init(storage: ServiceStorage) {
        self.storage = storage
    }

    package static let targetAlias = "t0"

    package func plan(_ path: ResolvedPath, columns: [EntityProperty]) -> SelectQuery {
        plan(steps: path.steps[...], columns: columns)
    }

    /// The query for the entities addressed by a prefix of a path (used to tell "no such parent" from "no children").
    func plan(steps: ArraySlice<ResolvedPath.Step>, columns: [EntityProperty]) -> SelectQuery {
        let target = steps[steps.endIndex - 1]
        var query = SelectQuery(
            items: columns.map { SelectColumn(expression: storage.selected(alias: Self.targetAlias, table: target.set.name, column: $0.name), alias: nil) },
            from: storage.table(target.set.name), alias: Self.targetAlias)
        if let key = target.key {
            query.filter(keyPredicate(alias: Self.targetAlias, set: target.set, type: target.type, values: key))
        }
        var childAlias = Self.targetAlias
        var child = target
        var index = steps.endIndex - 1
        var hop = 1
        while index > steps.startIndex, let navigation = child.via {
            let parent = steps[index - 1]
            let parentAlias = "p\(hop)"
            let on = SQLTerm.and(navigation.joinColumns.map { pair in
                // `navigation` belongs to the parent: local columns are the parent's, remote the child's.
                .equals(column(parentAlias, pair.local, of: parent.type), column(childAlias, pair.remote, of: child.type))
            })
            query.joins.append(JoinClause(kind: .inner, table: storage.table(parent.set.name), alias: parentAlias, on: on))
            if let key = parent.key {
                query.filter(keyPredicate(alias: parentAlias, set: parent.set, type: parent.type, values: key))
            }
            child = parent
            childAlias = parentAlias
            index -= 1
            hop += 1
        }
        return query
    }

    /// The key columns of `set` at `alias` equal to `values`; a date key compared the way its column
    /// stores dates (``ServiceStorage/equality(alias:table:column:value:)``), and a null names the
    /// rows whose inferred key holds a null there (see ModelBuilder).
    func keyPredicate(alias: String, set: EntitySet, type: EntityType, values: [ODataValue]) -> SQLTerm {
        .and(zip(type.keyNames, values).map {
            $1.isNull ? .isNull(column(alias, $0, of: type), negated: false) : storage.equality(alias: alias, table: set.name, column: $0, value: $1)
        })
    }

    /// `alias."column"` for a property of `type`, by its database name.
    func column(_ alias: String, _ property: String, of type: EntityType) -> SQLTerm {
        .column(alias: alias, name: storage.column(property, of: type))
    }
}
