import StrataCore

/// One entity read from the database: its selected property values (in the shape's order) and,
/// when `$expand` asked for them, the related entities.
struct EntityRow: Sendable {
    var values: [ODataValue]
    var expanded: [String: ExpandedEntities] = [:]
}

/// Related entities placed inline by `$expand`.
enum ExpandedEntities: Sendable {
    case single(EntityRow?)
    case collection([EntityRow])
}
