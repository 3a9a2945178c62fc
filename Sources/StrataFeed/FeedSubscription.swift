import StrataCore
import StrataSQL

/// What a subscriber of the change stream receives: per set, the fields it is served and the
/// condition a row must pass (its `$filter` and its row filter). Subscribers with equal query and
/// rights fingerprints receive the same events, so the hub groups them and makes the bytes of each
/// event once per group (``FeedHub``).
struct FeedShape: Sendable {
    struct Member: Sendable {
        /// The entity set, as the caller is served it (a view may lack `readableBy` columns).
        var set: EntitySet
        var type: EntityType
        /// The database table behind it.
        var table: String
        /// The compact form's fields, one per served property.
        var fields: [DataTableField]
        /// The served properties' names, in field order: picked from the full rows the hub reads.
        var properties: [String]
        /// `$filter` AND row filter as a condition on alias `t0` of ``table``; nil for every row.
        var condition: SQLTerm?
        /// Equal for equal conditions: the hub evaluates each distinct condition once per row.
        var conditionKey: String?
    }

    var members: [Member]
    var query: [UInt8]
    var rights: [UInt8]

    /// Subscribers with equal keys get the same events.
    var groupKey: [UInt8] { query + rights }
}
