import StrataCore
import StrataSQL

/// Reading one entity set's entities whole (every property, links deferred), prepared per service load.
///
/// A class, and immutable: the prepared key read hands it out on every GET by key, and as a struct
/// each hand-out copied its shape and statement text.
final class WholeEntityRead: Sendable {
    /// The shape the serializer writes such entities in.
    let shape: EntityShape
    /// `SELECT <every column> FROM <table> AS t0 WHERE <key> = ? … LIMIT 1`: the statement of
    /// `Set(key)`, run with the key values in key order as its binds (``SQLStatement/rebinding(_:)``),
    /// touching one row and prepared under ``byKeyName``. Nil for a type without a key.
    let byKeySQL: SQLStatement?
    /// The name under which PostgreSQL keeps `byKeySQL` prepared.
    var byKeyName: String? { byKeySQL?.reusableName }
    /// The type of each column of `byKeySQL`, for decoding its row.
    let columnTypes: [EDMPrimitiveType?]

    init(shape: EntityShape, byKeySQL: SQLStatement?, columnTypes: [EDMPrimitiveType?]) {
        self.shape = shape
        self.byKeySQL = byKeySQL
        self.columnTypes = columnTypes
    }
}
