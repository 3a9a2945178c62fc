/// `$apply` checked against a model (``QueryBinder``): what the planner turns into one SQL
/// statement with GROUP BY, wrapped by one level per stage.
///
/// Every expression that runs after the aggregation reads the result's columns as properties whose
/// names are ``ApplyColumn/internalName`` (`c0`, `c1`, …), never the aliases a client wrote: the SQL
/// names its columns only with those.
package struct BoundApply: Sendable, Hashable {
    /// Conditions on the entities before they are aggregated (`filter` before `groupby`).
    package var filters: [BoundExpression]
    /// The columns of the result, in the order they were written: grouping paths, aggregates, then
    /// properties computed after the aggregation.
    package var columns: [ApplyColumn]
    /// True for `groupby` (one row per group); false for `aggregate` alone (one row).
    package var isGrouped: Bool
    /// What happens to the aggregated rows, in order; the system options `$filter`, `$orderby`,
    /// `$skip` and `$top` are the last.
    package var stages: [ApplyStage]
    /// `$select`: the positions in ``columns`` of the columns to write; nil for all.
    package var written: [Int]?
    /// Aggregations before the last one, first first (`groupby(…)/aggregate(Total with average as A)`):
    /// the first reads the entities, each later one the rows of the one before. ``columns``,
    /// ``isGrouped`` and ``stages`` are the last one's.
    package var earlierLevels: [AggregationLevel] = []

    /// The columns of the aggregation that reads the entities.
    package var entityColumns: [ApplyColumn] { earlierLevels.first?.columns ?? columns }

    /// Every chain of navigation hops the entities' side uses (filters, grouping paths, aggregated
    /// expressions), prefixes included, each once: the joins of the inner statement.
    package var navigationJoins: [[NavigationHop]] {
        var expressions = filters
        for column in entityColumns {
            switch column.source {
            case .group(let e), .aggregate(_, let e): expressions.append(e)
            case .count, .computed: break
            }
        }
        var joins: [[NavigationHop]] = []
        var seen: Set<[String]> = []
        for path in expressions.flatMap(\.propertyPaths) where !path.navigation.isEmpty {
            for length in 1...path.navigation.count {
                let prefix = Array(path.navigation.prefix(length))
                if seen.insert(prefix.map(\.property.name)).inserted { joins.append(prefix) }
            }
        }
        return joins
    }
}

/// One column of an aggregated result.
package struct ApplyColumn: Sendable, Hashable {
    /// Its name in the result: an alias (`Total`), or a grouping path (`Car/make`), written nested.
    package var path: [String]
    /// Its type; nil only for a computed untyped null.
    package var type: EDMPrimitiveType?
    /// The property a grouping path ends at, whose facets (a decimal's scale) its values keep.
    package var property: EntityProperty?
    package var source: Source
    /// The name the SQL gives the column: `c` and its position.
    package var internalName: String

    package enum Source: Sendable, Hashable {
        /// A value of the entities (of the rows, after a first aggregation) that is grouped by.
        case group(BoundExpression)
        /// `$count`.
        case count
        /// An aggregation method over an expression of the entities.
        case aggregate(AggregationMethod, BoundExpression)
        /// Computed after the aggregation, from the other columns.
        case computed(BoundExpression)
    }

    package var name: String { path.joined(separator: "/") }
}

/// What happens to the aggregated rows at one level: the filters first, then the order, then skip and top.
package struct ApplyStage: Sendable, Hashable {
    package var filters: [BoundExpression] = []
    package var orderBy: [BoundOrderByItem] = []
    package var skip: Int = 0
    package var top: Int?

    package init() {}

    /// True when rows are cut off here, so that a later filter or order needs a level of its own.
    package var limits: Bool { skip > 0 || top != nil }
}

/// One aggregation of `$apply` with what happens to its rows before the next one.
package struct AggregationLevel: Sendable, Hashable {
    package var columns: [ApplyColumn]
    package var isGrouped: Bool
    package var stages: [ApplyStage]

    package init(columns: [ApplyColumn], isGrouped: Bool, stages: [ApplyStage]) {
        self.columns = columns
        self.isGrouped = isGrouped
        self.stages = stages
    }
}
