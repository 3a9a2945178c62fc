import StrataCore
import StrataSQL
import StrataIdentity
import StrataOData
import StrataStorage

/// Applies one change of a delta on a transaction's connection through the write path's
/// ``EntityWriter``: the same statements, `RETURNING` read-back, row-filter checks before and after,
/// value checks (``PropertyFacets``, ``RequiredProperties``) and storage error mapping as OData writes.
///
/// Every outcome other than success is thrown as a ``ChangeRefusal`` (a conflict) or an error (a
/// failure), so the enclosing transaction rolls the change back.
struct ChangeApplier: Sendable {
    let service: ODataService
    /// The rights the caller has for this change, asked before the transaction began.
    let access: RowAccess

    /// Applies the change (already rewritten for temporary keys) and returns the row as stored
    /// (nil after a delete).
    func apply(_ change: DataTableChange, connection: any DatabaseConnection) async throws -> DataTableValues? {
        let (set, type) = try Self.table(of: change, in: service.model)
        let writer = EntityWriter(service: service, connection: connection)
        let path = Self.describe(change)
        for (name, value) in change.values {
            guard let property = type.property(named: name) else { continue }
            try PropertyFacets.check(value, against: property, path: path)
        }
        switch change.kind {
        case .insert:
            return try await insert(change, set: set, type: type, writer: writer, path: path)
        case .update:
            let current = try await lockedRow(change, set: set, type: type, writer: writer, action: .update)
            return try await update(change, current: current, set: set, type: type, writer: writer)
        case .delete:
            let current = try await lockedRow(change, set: set, type: type, writer: writer, action: .delete)
            try await writer.delete(from: set, type: type, row: current)
            return nil
        }
    }

    private func insert(_ change: DataTableChange, set: EntitySet, type: EntityType, writer: EntityWriter, path: String) async throws -> DataTableValues {
        var values = change.values
        let temporary = TemporaryKeys.temporaryKey(of: change, type: type) != nil
        for name in type.keyNames {
            guard let keyValue = change.key[name] else { continue }
            if let given = values[name], given != keyValue, given.converted(to: keyValue.type ?? .int64) != keyValue {
                throw ODataError.badRequest("\(path) gives \(name) as \(keyValue) in its key and \(given) in its values.")
            }
            // A temporary key leaves the server-generated columns to the database.
            if temporary, type.property(named: name)?.isServerGenerated == true {
                values[name] = nil
            } else {
                values[name] = keyValue
            }
        }
        try GeneratedValues.checkInsert(type, values: &values, allowClientKeys: service.settings.allowClientKeys, path: path,
                                        temporaryKeys: true)
        try RequiredProperties.check(type, values: values, supplied: [], path: path)
        let ordered = type.properties.compactMap { property in values[property.name].map { (column: property.name, value: $0) } }
        let row = try await writer.insert(into: set, type: type, values: ordered)
        guard try await writer.allows(access, action: .insert, set: set, type: type, key: EntityWriter.key(of: type, in: row)) else {
            throw ODataError.forbidden("The new \(set.name) row is outside the rows you may create.")
        }
        return Self.values(of: type, row)
    }

    private func update(_ change: DataTableChange, current: [ODataValue], set: EntitySet, type: EntityType,
                        writer: EntityWriter) async throws -> DataTableValues {
        let key = EntityWriter.key(of: type, in: current)
        var assignments: [(column: String, value: AssignedValue)] = []
        for property in type.properties {
            guard let value = change.values[property.name] else { continue }
            if type.keyNames.contains(property.name) {
                let stored = EntityWriter.value(property.name, of: type, in: current)
                guard Self.same(value, stored) else {
                    throw ODataError.badRequest("The key field \(property.name) of \(Self.describe(change)) cannot be changed; delete the row and insert a new one.")
                }
                continue
            }
            if property.isServerGenerated, !Self.same(value, EntityWriter.value(property.name, of: type, in: current)) {
                throw ODataError.badRequest("\(Self.describe(change)) sets \(property.name), which the database generates.")
            }
            assignments.append((property.name, .value(value)))
        }
        let stored = assignments.isEmpty ? current : try await writer.update(set, type: type, key: key, assignments: assignments)
        guard try await writer.allows(access, action: .update, set: set, type: type, key: key) else {
            throw ODataError.forbidden("The change would move \(Self.describe(change)) outside the rows you may change.")
        }
        return Self.values(of: type, stored)
    }

    /// The row the change addresses, locked; a missing row or one whose values differ from the
    /// change's original values is a conflict.
    private func lockedRow(_ change: DataTableChange, set: EntitySet, type: EntityType, writer: EntityWriter,
                           action: TableAction) async throws -> [ODataValue] {
        var key: [ODataValue] = []
        for property in type.keyProperties {
            guard let value = change.key[property.name] else {
                throw ODataError.badRequest("\(Self.describe(change)) gives no value for the key field \(property.name).")
            }
            key.append(value)
        }
        let step = ResolvedPath.Step(set: set, type: type, via: nil, key: key)
        guard let current = try await writer.fetchLocked([step]) else {
            throw ChangeRefusal(serverRow: nil, message: "\(Self.describe(change)) no longer exists; it was deleted since it was read.")
        }
        guard try await writer.allows(access, action: action, set: set, type: type, key: key) else {
            throw ODataError.forbidden("You may not \(action == .delete ? "delete" : "change") \(Self.describe(change)).")
        }
        let changed = type.properties.indices.filter { index in
            guard let original = change.original[type.properties[index].name] else { return false }
            return !Self.same(original, current[index])
        }
        guard changed.isEmpty else {
            let names = changed.map { type.properties[$0].name }.joined(separator: ", ")
            throw ChangeRefusal(serverRow: Self.values(of: type, current),
                                message: "\(Self.describe(change)) changed since it was read (\(names)); nothing of this change was applied.")
        }
        return current
    }

    // MARK: Helpers

    static func table(of change: DataTableChange, in model: ServiceModel) throws(ODataError) -> (EntitySet, EntityType) {
        guard let set = model.entitySet(named: change.table) else {
            throw .badRequest("There is no table named \(change.table).")
        }
        if let reason = set.readOnlyReason {
            throw .methodNotAllowed("\(set.name) is read-only (\(reason)); it cannot be changed.")
        }
        return (set, model.entityType(of: set))
    }

    /// A full row as field values.
    static func values(of type: EntityType, _ row: [ODataValue]) -> DataTableValues {
        Dictionary(uniqueKeysWithValues: zip(type.properties.map(\.name), row))
    }

    /// Equal values, integers and dates compared across their EDM widths.
    static func same(_ a: ODataValue, _ b: ODataValue) -> Bool {
        if a == b { return true }
        guard let type = b.type else { return false }
        return a.converted(to: type) == b
    }

    /// `Person(7)` or `the new Person (change 3)`, for messages.
    static func describe(_ change: DataTableChange) -> String {
        let keyText = change.key.keys.sorted().map { "\($0)=\(change.key[$0]!)" }.joined(separator: ",")
        switch change.kind {
        case .insert: return "the new \(change.table) row (change \(change.id.prefix(60)))"
        default: return "\(change.table)(\(keyText))"
        }
    }
}

/// A change that met a row differing from what the client read (or no row at all).
struct ChangeRefusal: Error, Sendable {
    /// The row as stored now; nil when it no longer exists.
    var serverRow: DataTableValues?
    var message: String
}
