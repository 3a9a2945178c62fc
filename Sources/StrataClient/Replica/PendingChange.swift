import StrataCore

/// A row's key values in key-field order.
typealias RowKey = [ODataValue]

/// A local change not yet acknowledged by the server: in the outbox, or in the batch being sent.
///
/// Edits of one row made while it is not being sent merge into one change (an insert then an
/// update is one insert; an insert then a delete is nothing), so the server sees each row once per
/// sync with the values it had when first edited as `original` — its conflict check.
struct PendingChange: Sendable, Hashable {
    /// Increasing in the order the changes were made; the change's id on the wire.
    var id: UInt64
    var change: DataTableChange
    /// Why the server refused it last time; it is sent again at the next sync.
    var error: String?
    /// For a conflict that waits for the app (``ConflictPolicy/ask``): the server's row when the
    /// conflict was found (nil: the row was deleted there). Such a change is not sent until resolved.
    var conflict: ServerRow?

    /// The server's side of a conflict.
    struct ServerRow: Sendable, Hashable {
        var values: DataTableValues?
    }

    var isWaiting: Bool { conflict != nil }
}

extension PendingChange {
    /// The row after this change, from the row before it (nil: the row does not exist).
    func applied(to row: [ODataValue]?, fields: [DataTableField]) -> [ODataValue]? {
        switch change.kind {
        case .insert:
            return fields.map { change.values[$0.name] ?? change.key[$0.name] ?? .null }
        case .update:
            guard var row else { return nil }
            for (index, field) in fields.enumerated() {
                if let value = change.values[field.name] { row[index] = value }
            }
            return row
        case .delete:
            return nil
        }
    }
}
