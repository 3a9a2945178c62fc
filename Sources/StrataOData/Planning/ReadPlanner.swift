import StrataCore
import StrataSQL
import StrataStorage

/// Plans reads: the target's SELECT from the path (``PathPlanner``), narrowed by `$filter` and by
/// the caller's row filters on every table it touches, ordered by `$orderby` then the key, with the
/// columns `$select` and `$expand` need at each level.
///
/// Pure and synchronous: the caller's access to each table was decided before planning
/// (``Authorizer/readAccess(_:_:)``), so planning asks nothing and reads nothing.
package struct ReadPlanner {
    let service: ODataService
    let access: ReadAccess

    package init(service: ODataService, access: ReadAccess) {
        self.service = service
        self.access = access
    }

    private var storage: ServiceStorage { service.storage }
    private var dialect: SQLDialect { service.dialect }

    /// With `entityTags`, every column is read (not only what `$select` writes) so that each entity
    /// gets its ETag, which hashes the whole row; `$links` reads keys only.
    package func plan(_ path: ResolvedPath, _ bound: BoundQuery, entityTags: Bool = true) throws -> ReadPlan {
        let target = path.target
        let expansions = try expansionPlans(bound.projection)
        var columns: [EntityProperty]
        if entityTags {
            // Every column, whatever else is needed.
            columns = bound.projection.entityType.properties
        } else {
            columns = Self.columns(for: bound.projection, extra: expansions.flatMap { $0.navigation.joinColumns.map(\.local) })
        }
        let positioned = expansions.map { plan -> ExpansionPlan in
            var plan = plan
            plan.parentPositions = plan.navigation.joinColumns.map { pair in columns.firstIndex { $0.name == pair.local }! }
            return plan
        }

        var query = PathPlanner(storage: storage).plan(path, columns: columns)
        try restrictPath(path, &query)

        let joined = JoinBuilder(storage: storage, aliasPrefix: "n")
            .joins(from: PathPlanner.targetAlias, of: target.type, chains: bound.rootJoins)
        for (index, table) in joined.tables.enumerated() {
            // A joined row the caller may not see reads as missing: its rule goes into the join condition.
            if let filter = try access.rowFilter(table.set.name) {
                var join = joined.joins[index]
                join.on = .and([join.on, RowFilterSQL(storage: storage).condition(filter, alias: table.alias, set: table.set, type: table.type)])
                query.joins.append(join)
            } else {
                query.joins.append(joined.joins[index])
            }
        }
        var translator = FilterTranslator(dialect: dialect, names: storage.names, rootAlias: PathPlanner.targetAlias, rootType: target.type.name,
                                          joinAliases: joined.aliases, dateForms: storage.dateForms)
        translator.related = RelatedTables(storage: storage, access: access)
        if let filter = bound.filter {
            query.filter(translator.condition(filter))
        }
        // `$compute`: each computed property is one more column of the row, after the entity's own.
        for computed in bound.computed {
            query.items.append(SelectColumn(expression: translator.scalar(computed.expression, as: computed.expression.type)))
            columns.append(EntityProperty(name: computed.alias, type: computed.expression.type ?? .string))
        }

        var sortKeys = bound.orderBy.map { translator.sortKey($0.expression, descending: $0.direction == .descending) }
        sortKeys += target.type.keyProperties.map { property in
            // A date key in another form than Strata's sorts by what its form sorts by.
            let column = BoundExpression(type: property.type, node: .property(BoundPropertyPath(navigation: [], property: property)))
            guard translator.dateColumn(column) != nil else {
                return SortKey(expression: .column(alias: PathPlanner.targetAlias, name: storage.column(property.name, of: target.type)),
                               descending: false, type: property.type, canBeNull: property.isNullable)
            }
            var key = translator.sortKey(column, descending: false)
            key.canBeNull = property.isNullable
            return key
        }
        let shape: EntityShape
        if positioned.isEmpty, bound.computed.isEmpty, bound.projection.selectsAll, let whole = service.wholeEntityReads[target.set.name]?.shape,
           whole.type.qualifiedName == bound.projection.entityType.qualifiedName, columns.count == whole.properties.count {
            shape = whole
        } else {
            shape = Self.shape(target.set, bound.projection, columns: columns, expansions: positioned, computed: bound.computed.map(\.alias))
        }
        return ReadPlan(query: query, columns: columns, sortKeys: sortKeys, shape: shape, expansions: positioned)
    }

    /// Applies the row filter of every table of the path to its alias.
    func restrictPath(_ path: ResolvedPath, _ query: inout SelectQuery) throws {
        let last = path.steps.count - 1
        for (index, step) in path.steps.enumerated() {
            let alias = index == last ? PathPlanner.targetAlias : "p\(last - index)"
            if let filter = try access.rowFilter(step.set.name) {
                query.filter(RowFilterSQL(storage: storage).condition(filter, alias: alias, set: step.set, type: step.type))
            }
        }
    }

    private func expansionPlans(_ projection: BoundProjection) throws -> [ExpansionPlan] {
        var plans: [ExpansionPlan] = []
        for expansion in projection.expansions {
            let navigation = expansion.property
            let type = expansion.projection.entityType
            let rowFilter = try access.rowFilter(expansion.targetSet.name)
            let children = try expansionPlans(expansion.projection)
            let extra = navigation.joinColumns.map(\.remote) + children.flatMap { $0.navigation.joinColumns.map(\.local) }
                + type.properties.map(\.name)
            let columns = Self.columns(for: expansion.projection, extra: extra)
            let positionedChildren = children.map { child -> ExpansionPlan in
                var child = child
                child.parentPositions = child.navigation.joinColumns.map { pair in columns.firstIndex { $0.name == pair.local }! }
                return child
            }
            let translator = FilterTranslator(dialect: dialect, names: storage.names, rootAlias: ExpansionLoader.alias,
                                              rootType: type.name, dateForms: storage.dateForms)
            plans.append(ExpansionPlan(
                navigation: navigation, set: expansion.targetSet, type: type, columns: columns,
                parentPositions: [],
                childPositions: navigation.joinColumns.map { pair in columns.firstIndex { $0.name == pair.remote }! },
                rowFilter: rowFilter, children: positionedChildren,
                shape: Self.shape(expansion.targetSet, expansion.projection, columns: columns, expansions: positionedChildren),
                condition: expansion.filter.map(translator.condition),
                order: expansion.orderBy.map { translator.sortKey($0.expression, descending: $0.direction == .descending).orderTerm },
                perParent: ExpansionPlan.PerParent(skip: expansion.skip ?? 0, top: expansion.top, count: expansion.count)))
        }
        return plans
    }

    /// The columns one level reads: what `$select` writes, plus keys (for URIs) and join columns, in column order.
    static func columns(for projection: BoundProjection, extra: [String]) -> [EntityProperty] {
        let type = projection.entityType
        var needed = Set(projection.properties.map(\.name))
        needed.formUnion(type.keyNames)
        needed.formUnion(extra)
        return type.properties.filter { needed.contains($0.name) }
    }

    static func shape(_ set: EntitySet, _ projection: BoundProjection, columns: [EntityProperty], expansions: [ExpansionPlan],
                      computed: [String] = []) -> EntityShape {
        let expanded = Dictionary(expansions.map { ($0.navigation.name, $0.shape) }, uniquingKeysWith: { a, _ in a })
        return EntityShape(
            set: set, type: projection.entityType, properties: columns,
            written: projection.selectsAll ? nil : Set(projection.properties.map(\.name) + computed),
            navigations: projection.navigationLinks.map { ($0, expanded[$0.name]) })
    }
}
