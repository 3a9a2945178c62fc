import StrataCore
import StrataSQL

/// Everything needed to read the entities a request addresses: the SELECT without order or limit,
/// the columns it reads, the total order, how to write the rows, and the `$expand` levels below.
package struct ReadPlan: Sendable {
    package var query: SelectQuery
    package var columns: [EntityProperty]
    package var sortKeys: [SortKey]
    package var shape: EntityShape
    var expansions: [ExpansionPlan]
}

/// One `$expand`ed navigation property: how to fetch the related entities of a whole chunk of parent
/// rows in one statement, and how to attach them to their parents.
struct ExpansionPlan: Sendable {
    var navigation: NavigationProperty
    var set: EntitySet
    var type: EntityType
    /// Columns read for the related entities.
    var columns: [EntityProperty]
    /// Positions, in the parent's columns, of the navigation's local join columns.
    var parentPositions: [Int]
    /// Positions, in `columns`, of the navigation's remote join columns (same order as `parentPositions`).
    var childPositions: [Int]
    /// The caller's row filter on the related table.
    var rowFilter: BoundExpression?
    var children: [ExpansionPlan]
    var shape: EntityShape
    /// V4's options of the expansion (``BoundExpansion``): a condition and an order in SQL on the
    /// related table (alias ``ExpansionLoader/alias``), and what each parent keeps of its related entities.
    var condition: SQLTerm?
    var order: [OrderTerm] = []
    var perParent = PerParent()

    /// How many related entities each parent keeps, and whether it is told how many there were.
    struct PerParent: Sendable {
        var skip = 0
        var top: Int?
        var count = false

        /// `entities` as one parent keeps them.
        func slice<T>(_ entities: [T]) -> [T] {
            let rest = entities.dropFirst(skip)
            return Array(top.map { rest.prefix($0) } ?? rest)
        }
    }
}
