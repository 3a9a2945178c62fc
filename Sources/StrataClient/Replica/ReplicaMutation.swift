import StrataCore

/// One step of a replica's state: every operation of a ``Replica`` (a local edit, a push's
/// results, a pulled page, a reload) is turned into a list of these first, then applied to the
/// local database in one transaction (``ReplicaDatabase/apply(_:to:initializing:)``) — a crash leaves the state
/// before the operation or after it, with no policy decided twice.
///
/// Replicas written before the local database recorded these in a journal; the legacy reader
/// replays it once to convert the directory.
enum ReplicaMutation: Sendable, Hashable {
    /// Adds the local change, or replaces the one with its id.
    case putPending(PendingChange)
    case dropPending(UInt64)
    /// These changes are the batch being sent, under this idempotency key.
    case seal(key: String, ids: [UInt64])
    /// The batch was answered.
    case unseal
    /// Server rows that are new or changed, in field order.
    case upsert(table: String, rows: [[ODataValue]])
    /// Server rows that were deleted or left the table's filter.
    case delete(table: String, keys: [RowKey])
    /// The table downloaded whole: its fields, rows and token (a first sync, or a reload after 410).
    case replace(table: String, fields: [DataTableField], rows: [[ODataValue]], token: String?)
    case token(table: String, String?)
    /// The table's foreign keys as the server's model declares them (each a list of its fields):
    /// the local table gets an index on each, so joins from its masters do not scan it.
    case foreignKeys(table: String, columns: [[String]])
    /// The table's definition changed (another filter): its rows and token are dropped.
    case forget(table: String)
    case counters(nextChange: UInt64, nextTemporaryKey: Int64)
}
