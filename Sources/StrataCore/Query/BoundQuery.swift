/// Query options checked against a model for one entity type: what the SQL planner and the serializer
/// consume. Produced by ``QueryBinder/bind(_:to:)``.
package struct BoundQuery: Sendable, Hashable {
    /// The entity type the options apply to (the entity set's or navigation's type).
    package var entityType: EntityType
    /// A Boolean expression, or nil when there is no `$filter`.
    package var filter: BoundExpression?
    /// Sort keys, most significant first.
    package var orderBy: [BoundOrderByItem]
    /// `$top` and `$skip` as parsed (within ``QueryLimits``).
    package var top: Int?
    package var skip: Int?
    /// `$select` and `$expand` merged into one tree of what to read and write at each level.
    package var projection: BoundProjection
    /// The remaining options, passed through unchanged from ``QueryOptions``.
    package var inlineCount: InlineCount?
    package var skipToken: String?
    package var format: String?
    package var customOptions: [CustomQueryOption]
    /// `$apply`: when set, the read returns aggregated rows, and `$filter` and `$orderby` are its last
    /// stages (``filter`` and ``orderBy`` stay empty); `$top` and `$skip` apply to its result.
    package var apply: BoundApply?
    /// `$compute`: the computed properties to write with each entity, in the order written.
    package var computed: [BoundComputed] = []

    package init(entityType: EntityType, filter: BoundExpression? = nil, orderBy: [BoundOrderByItem] = [],
                top: Int? = nil, skip: Int? = nil, projection: BoundProjection, inlineCount: InlineCount? = nil,
                skipToken: String? = nil, format: String? = nil, customOptions: [CustomQueryOption] = [], apply: BoundApply? = nil) {
        self.apply = apply
        self.entityType = entityType
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.projection = projection
        self.inlineCount = inlineCount
        self.skipToken = skipToken
        self.format = format
        self.customOptions = customOptions
    }

    /// Every chain of navigation hops that `$filter` and `$orderby` use, prefixes included, each once,
    /// in order of first use: the joins the SQL needs. `PersonCar/Car/make` yields `[PersonCar]` and
    /// `[PersonCar, Car]`.
    package var navigationJoins: [[NavigationHop]] {
        var joins: [[NavigationHop]] = []
        var seen: Set<[String]> = []
        let paths = (filter?.propertyPaths ?? []) + orderBy.flatMap(\.expression.propertyPaths)
            + computed.flatMap(\.expression.propertyPaths)
        for chain in apply?.navigationJoins ?? [] where seen.insert(chain.map(\.property.name)).inserted {
            joins.append(chain)
        }
        for path in paths where !path.navigation.isEmpty {
            for length in 1...path.navigation.count {
                let prefix = Array(path.navigation.prefix(length))
                if seen.insert(prefix.map(\.property.name)).inserted { joins.append(prefix) }
            }
        }
        return joins
    }
}

/// One bound `$orderby` key.
package struct BoundOrderByItem: Sendable, Hashable {
    /// An expression of a primitive type (never an untyped null).
    package var expression: BoundExpression
    /// `asc` or `desc`.
    package var direction: SortDirection

    package init(expression: BoundExpression, direction: SortDirection) {
        self.expression = expression
        self.direction = direction
    }
}

/// What to return for the entities at one level of the response: the entity set's own entities at the
/// root, an expanded navigation's below.
///
/// Without `$select` every level returns everything. With it, a level returns what `$select` names
/// there (`*` meaning everything); an expanded level that `$select` names only as a navigation
/// property (`$select=PersonCar&$expand=PersonCar`) returns everything; an expanded navigation that
/// `$select` leaves out is not returned, as in WCF Data Services. The planner still reads key and
/// join columns that ``properties`` omits: the serializer needs keys for `__metadata`.
package struct BoundProjection: Sendable, Hashable {
    /// The type of the entities at this level.
    package var entityType: EntityType
    /// The structural properties to write, in the type's property order.
    package var properties: [EntityProperty]
    /// The navigation properties to write, in the type's order: expanded ones inline, others as `__deferred`.
    package var navigationLinks: [NavigationProperty]
    /// The expanded navigation properties at this level, in the order `$expand` first names them.
    package var expansions: [BoundExpansion]
    /// True when the level writes every property and navigation link (no `$select`, `*`, or selected whole).
    package var selectsAll: Bool

    package init(entityType: EntityType, properties: [EntityProperty], navigationLinks: [NavigationProperty],
                expansions: [BoundExpansion], selectsAll: Bool) {
        self.entityType = entityType
        self.properties = properties
        self.navigationLinks = navigationLinks
        self.expansions = expansions
        self.selectsAll = selectsAll
    }

    /// Everything of a type, nothing expanded: the projection of a request without `$select` and `$expand`.
    package static func all(of entityType: EntityType) -> BoundProjection {
        BoundProjection(entityType: entityType, properties: entityType.properties,
                        navigationLinks: entityType.navigationProperties, expansions: [], selectsAll: true)
    }
}

/// An expanded navigation property and what to return of the entities it leads to.
package struct BoundExpansion: Sendable, Hashable {
    /// The navigation property: `multiplicity` tells a collection from a single entity, `joinColumns`
    /// how to fetch the children of many parents in one statement.
    package var property: NavigationProperty
    /// The entity set (table) the navigation leads to.
    package var targetSet: EntitySet
    /// What to return of the related entities.
    package var projection: BoundProjection

    package init(property: NavigationProperty, targetSet: EntitySet, projection: BoundProjection) {
        self.property = property
        self.targetSet = targetSet
        self.projection = projection
    }
}
