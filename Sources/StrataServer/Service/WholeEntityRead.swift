import StrataCore

/// Reading one entity set's entities whole (every property, links deferred), prepared per service load.
///
/// A class, and immutable: the prepared key read hands it out on every GET by key, and as a struct
/// each hand-out copied its shape and statement text.
final class WholeEntityRead: Sendable {
    /// The shape the serializer writes such entities in.
    let shape: EntityShape
    /// `SELECT <every column> FROM <table> AS t0 WHERE <key> = ? … LIMIT 1`: the statement of
    /// `Set(key)`, whose binds are the key values in key order. Nil for a type without a key.
    let byKeySQL: String?
    /// The name under which PostgreSQL keeps `byKeySQL` prepared (``SQLStatement/reusableName``).
    let byKeyName: String?
    /// The type of each column of `byKeySQL`, for decoding its row.
    let columnTypes: [EDMPrimitiveType?]

    init(shape: EntityShape, byKeySQL: String?, byKeyName: String?, columnTypes: [EDMPrimitiveType?]) {
        self.shape = shape
        self.byKeySQL = byKeySQL
        self.byKeyName = byKeyName
        self.columnTypes = columnTypes
    }
}
