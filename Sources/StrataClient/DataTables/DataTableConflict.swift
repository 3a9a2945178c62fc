import StrataCore

/// A row whose change the server refused because the stored row no longer had the values this
/// table read: someone else changed (or deleted) it in the meantime.
public struct DataTableConflict: Sendable, Hashable {
    /// This table's values for the row, edits included, by field name.
    public var mine: DataTableValues
    /// The values this table read from the server, by field name.
    public var original: DataTableValues
    /// The row as the server has it now, by field name; nil when it was deleted.
    public var server: DataTableValues?
    /// The server's explanation.
    public var message: String

    /// The fields where the server's row differs from what this table read.
    public var changedOnServer: [String] {
        guard let server else { return original.keys.sorted() }
        return original.keys.sorted().filter { name in server[name].map { $0 != original[name] } ?? false }
    }
}

/// How to settle a conflict (``DataTable/resolveConflict(of:_:)``).
public enum DataTableResolution: Sendable, Hashable {
    /// Keep my values and send them again: the server's row becomes the original, so the next
    /// apply overwrites it. For a row deleted on the server, my row is inserted again as new.
    case keepMine
    /// Take the server's row: my edits are dropped (a row deleted on the server leaves the table).
    case takeServer
    /// Field by field: the listed fields keep my value, every other field takes the server's; the
    /// server's row becomes the original, so the next apply sends the fields I kept.
    case merge(keepingMine: Set<String>)
}

extension DataTable {
    /// The rows whose last apply met a conflict.
    public var conflicts: [DataTableRow] { storage.filter { $0.conflict != nil } }

    /// Settles the conflict of one row. Does nothing to a row without a conflict.
    /// - Throws: ``DataTableError/Kind/invalidOperation`` for an id not in the table.
    public mutating func resolveConflict(of id: DataTableRow.ID, _ resolution: DataTableResolution) throws(DataTableError) {
        guard let row = self[id] else { throw DataTableError(.invalidOperation, "The table \(name) has no row with id \(id).") }
        guard let conflict = row.conflict else { return }
        guard let server = conflict.server else {
            switch resolution {
            case .takeServer:
                remove([id])
            case .keepMine, .merge:
                // The row is gone on the server: mine comes back as a new row under a temporary key.
                let values = row.values
                remove([id])
                var fresh: [String: (any ODataValueConvertible)?] = [:]
                for (field, value) in zip(fields, values) where !field.serverGenerated && !field.readOnly { fresh[field.name] = value }
                try addRow(fresh)
            }
            return
        }
        let serverValues = fields.map { server[$0.name] ?? .null }
        update(id) { row in
            switch resolution {
            case .keepMine:
                break
            case .takeServer:
                row.values = serverValues
            case .merge(let keep):
                for (index, field) in row.fields.enumerated() where !keep.contains(field.name) {
                    row.values[index] = serverValues[index]
                }
            }
            row.originalValues = serverValues
            row.conflict = nil
            row.error = nil
        }
    }
}
