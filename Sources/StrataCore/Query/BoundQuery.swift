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

    /// Every chain of navigation hops whose tables `$filter` and `$orderby` read, prefixes included,
    /// each once, in order of first use: the tables the caller must be allowed to read. The joins of
    /// ``rootJoins`` come first; then, for V4's lambdas and `$count`, the chains from the entity to each
    /// collection and to what their predicates reach (each such chain holds a collection-valued hop,
    /// so it never equals a join's).
    package var navigationJoins: [[NavigationHop]] {
        var joins = rootJoins
        var seen = Set(joins.map { $0.map(\.property.name) })
        for expression in [filter].compactMap({ $0 }) + orderBy.map(\.expression) {
            Self.addCollectionChains(expression, scopeChains: [[]], into: &joins, seen: &seen)
        }
        return joins
    }

    /// Every chain of single-valued navigation hops that paths of the entity itself use in `$filter`
    /// and `$orderby`, prefixes included, each once, in order of first use: the joins of the outer
    /// statement. `PersonCar/Car/make` yields `[PersonCar]` and `[PersonCar, Car]`.
    package var rootJoins: [[NavigationHop]] {
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

    /// Adds the chains of the lambdas and `$count`s in `expression`; `scopeChains[n]` is the chain
    /// from the entity to the range variable of scope n.
    private static func addCollectionChains(_ expression: BoundExpression, scopeChains: [[NavigationHop]],
                                            into joins: inout [[NavigationHop]], seen: inout Set<[String]>) {
        func add(_ chain: [NavigationHop]) {
            if seen.insert(chain.map(\.property.name)).inserted { joins.append(chain) }
        }
        for use in expression.collectionUses {
            var chain = scopeChains[min(use.collection.scope, scopeChains.count - 1)]
            for hop in use.collection.hops {
                chain.append(hop)
                add(chain)
            }
            guard let predicate = use.predicate else { continue }
            let inner = scopeChains + [chain]
            for path in predicate.propertyPaths(inScope: inner.count - 1) {
                var reached = chain
                for hop in path.navigation {
                    reached.append(hop)
                    add(reached)
                }
            }
            addCollectionChains(predicate, scopeChains: inner, into: &joins, seen: &seen)
        }
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
    /// V4's options for the related entities of each parent (``ExpandOptions``), bound against the
    /// related type; their expressions name properties of the related entity only.
    package var filter: BoundExpression?
    package var orderBy: [BoundOrderByItem]
    package var top: Int?
    package var skip: Int?
    package var count: Bool

    package init(property: NavigationProperty, targetSet: EntitySet, projection: BoundProjection, filter: BoundExpression? = nil,
                 orderBy: [BoundOrderByItem] = [], top: Int? = nil, skip: Int? = nil, count: Bool = false) {
        self.property = property
        self.targetSet = targetSet
        self.projection = projection
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.count = count
    }

    /// Whether each parent gets a part of its related entities rather than all of them.
    package var limitsEachParent: Bool { filter != nil || top != nil || (skip ?? 0) > 0 }
}
