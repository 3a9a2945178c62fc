import StrataCore

extension DataTable {
    /// The changes of this table as delta entries, ids prefixed with `prefix`.
    ///
    /// Inserts send every field given (a temporary key included) but server-generated ones;
    /// updates send the changed fields with their original values; deletes send the original
    /// values of every field, so the server refuses to delete a row someone else changed. Rows that
    /// were added and deleted again are not sent.
    /// - Throws: ``DataTableError/Kind/invalidOperation`` when the table has changes but no key
    ///   fields (a SQL result that is not one table's rows cannot be sent back).
    public func changes(idPrefix prefix: String = "") throws(DataTableError) -> [DataTableChange] {
        let pending = storage.filter { $0.hasChanges && !($0.isNew && $0.isDeleted) }
        guard !pending.isEmpty else { return [] }
        let keyFields = fields.enumerated().filter { $0.element.key }
        guard !keyFields.isEmpty, fields.contains(where: { !$0.readOnly }) else {
            throw DataTableError(.invalidOperation, "The table \(name) has no key fields it can be changed by; read the table (or a query of its own columns including its key) to change it.")
        }
        return pending.map { row in
            let key = Dictionary(uniqueKeysWithValues: keyFields.map { ($0.element.name, row.originalValues[$0.offset]) })
            let id = prefix + String(row.id)
            switch row.state {
            case .added:
                var values: DataTableValues = [:]
                for (index, field) in fields.enumerated() where !field.serverGenerated && !field.readOnly && !row.values[index].isNull {
                    values[field.name] = row.values[index]
                }
                let newKey = Dictionary(uniqueKeysWithValues: keyFields.map { ($0.element.name, row.values[$0.offset]) })
                return DataTableChange(id: id, table: name, kind: .insert, key: newKey.filter { !$0.value.isNull }, values: values)
            case .deleted:
                var original: DataTableValues = [:]
                for (index, field) in fields.enumerated() where !field.key { original[field.name] = row.originalValues[index] }
                return DataTableChange(id: id, table: name, kind: .delete, key: key, original: original)
            default:
                var original: DataTableValues = [:]
                var values: DataTableValues = [:]
                for (index, field) in fields.enumerated() where row.values[index] != row.originalValues[index] {
                    original[field.name] = row.originalValues[index]
                    values[field.name] = row.values[index]
                }
                return DataTableChange(id: id, table: name, kind: .update, key: key, original: original, values: values)
            }
        }
    }

    /// Takes the server's results for the changes made with ``changes(idPrefix:)``: applied rows
    /// take the stored values and become unchanged (applied deletes leave the table), failed rows
    /// keep their edits and carry the error, conflicts carry the server's row.
    public mutating func merge(_ response: DataTableChangeResponse, idPrefix prefix: String = "") {
        var removed = Set<DataTableRow.ID>()
        var replaced: [(DataTableRow.ID, DataTableRow)] = []
        for result in response.results where result.id.hasPrefix(prefix) {
            guard let id = Int(result.id.dropFirst(prefix.count)), let row = self[id] else { continue }
            switch result.status {
            case .applied:
                if row.isDeleted {
                    removed.insert(id)
                } else {
                    let stored = fields.enumerated().map { result.row?[$0.element.name] ?? row.values[$0.offset] }
                    // An applied insert becomes a stored row: a fresh row with the same id.
                    var fresh = DataTableRow(id: id, schema: schema, values: stored, isNew: false)
                    fresh.error = nil
                    replaced.append((id, fresh))
                }
            case .failed:
                update(id) { $0.error = DataTableError(.rejected, result.message ?? "The change failed.") }
            case .conflict:
                let mine = Dictionary(uniqueKeysWithValues: zip(fields.map(\.name), row.values))
                let original = Dictionary(uniqueKeysWithValues: zip(fields.map(\.name), row.originalValues))
                let conflict = DataTableConflict(mine: mine, original: original, server: result.serverRow,
                                                 message: result.message ?? "The row changed on the server.")
                update(id) { $0.conflict = conflict; $0.error = nil }
            }
        }
        for (id, fresh) in replaced {
            update(id) { $0 = fresh }
        }
        remove(removed)
        adoptStoredKeys(response.keys)
    }

    /// Rows still waiting to be stored that refer to a new row by its temporary key take the key
    /// the server gave that row, so that sending them again (after an independent apply stored the
    /// master but not the detail) refers to the stored row. A reference is a field named like the
    /// new row's single key field (`PersonCar.personID` for `Person.personID`) holding the
    /// temporary value; the server rewrites references within one delta by the real foreign keys.
    mutating func adoptStoredKeys(_ keys: [String: [DataTableChangeResponse.KeyAssignment]]) {
        for assignments in keys.values {
            for assignment in assignments {
                guard assignment.temporary.count == 1, let (field, temporary) = assignment.temporary.first,
                      let stored = assignment.key[field], let position = schema.positions[field] else { continue }
                for index in storage.indices where storage[index].hasChanges
                    && storage[index].values[position].integerValue == temporary.integerValue {
                    storage[index].values[position] = stored.converted(to: fields[position].type) ?? stored
                }
            }
        }
    }
}
