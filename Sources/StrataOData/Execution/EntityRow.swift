import StrataCore

/// One entity read from the database: its selected property values (in the shape's order) and,
/// when `$expand` asked for them, the related entities.
package struct EntityRow: Sendable {
    package var values: [ODataValue]
    var expanded: [String: ExpandedEntities] = [:]
    /// V4's `$count=true` in an expansion's options: how many related entities matched its
    /// `$filter`, before its `$skip` and `$top`, by navigation property name.
    var expandedCounts: [String: Int] = [:]
    /// How many entities its `$expand`ed tree places inline, at every level: what the response
    /// writes, which grows faster than the rows read when related entities are shared (a Car under
    /// each of its PersonCar rows). Saturates instead of overflowing.
    var inlineCount = 0
}

/// Related entities placed inline by `$expand`.
enum ExpandedEntities: Sendable {
    case single(EntityRow?)
    case collection([EntityRow])
}
