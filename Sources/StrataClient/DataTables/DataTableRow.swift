import Foundation
import StrataCore

/// The field definitions a table's rows share, looked up by name. Immutable, so it is shared by
/// reference between a table and all its rows without any synchronization.
final class DataTableSchema: Sendable {
    let fields: [DataTableField]
    let positions: [String: Int]

    init(fields: [DataTableField]) {
        self.fields = fields
        var positions: [String: Int] = [:]
        for (index, field) in fields.enumerated() where positions[field.name] == nil { positions[field.name] = index }
        self.positions = positions
    }

    func position(of name: String) throws(DataTableError) -> Int {
        guard let position = positions[name] else {
            throw DataTableError(.unknownField, "There is no field named '\(name)'. Fields: \(fields.map(\.name).joined(separator: ", ")).")
        }
        return position
    }
}

/// One row of a ``DataTable``: its values by field name, the values as they were read from the
/// server, and what has happened to it since.
///
/// ```swift
/// let row = people[id]
/// print(row.lastName, row["firstName"], row.originalValue(for: "lastName"))
/// try people.update(id) { try $0.set("lastName", to: "Smyth") }
/// ```
///
/// Values are set through ``set(_:to:)``, which checks them against the field: its type, whether
/// it may be null, its size, and whether it can be changed at all.
@dynamicMemberLookup
public struct DataTableRow: Sendable, Identifiable {
    /// What has happened to a row since it was read or last applied.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// As read from the server (or as stored by the last successful apply).
        case unchanged
        /// Created locally with ``DataTable/addRow(_:)``; not yet stored.
        case added
        /// Some values differ from the original ones.
        case modified
        /// Marked for deletion with ``delete()``.
        case deleted
    }

    /// A handle for the row within its table: unique in the table, stable while the row lives.
    public let id: Int
    let schema: DataTableSchema
    /// Current values, one per field, in field order.
    public internal(set) var values: [ODataValue]
    /// Values as read from the server, one per field; for an added row, the values it started with.
    public internal(set) var originalValues: [ODataValue]
    /// The row was created locally and has not been stored yet.
    let isNew: Bool
    var isDeleted = false
    /// Why the last apply did not store this row's change, when it failed.
    public internal(set) var error: DataTableError?
    /// The server's row when the last apply met a conflict; resolve it with ``DataTable/resolveConflict(of:_:)``.
    public internal(set) var conflict: DataTableConflict?

    init(id: Int, schema: DataTableSchema, values: [ODataValue], isNew: Bool) {
        self.id = id
        self.schema = schema
        self.values = values
        self.originalValues = values
        self.isNew = isNew
    }

    /// The fields of the row's table.
    public var fields: [DataTableField] { schema.fields }

    /// What has happened to the row: deleted wins, then added, then modified when any value differs from its original.
    public var state: State {
        if isDeleted { return .deleted }
        if isNew { return .added }
        return values == originalValues ? .unchanged : .modified
    }

    /// True unless the row is ``State/unchanged``.
    public var hasChanges: Bool { state != .unchanged }

    /// The current value of a field; nil when the table has no such field (null is ``ODataValue/null``).
    public subscript(field: String) -> ODataValue? {
        schema.positions[field].map { values[$0] }
    }

    /// `row.lastName`: the current value of a field, as ``subscript(_:)``.
    public subscript(dynamicMember field: String) -> ODataValue? {
        self[field]
    }

    /// The value the field had when the row was read from the server (or last stored).
    public func originalValue(for field: String) -> ODataValue? {
        schema.positions[field].map { originalValues[$0] }
    }

    /// Whether the field's value differs from its original value.
    public func isChanged(_ field: String) -> Bool {
        guard let position = schema.positions[field] else { return false }
        return values[position] != originalValues[position]
    }

    /// The names of the fields whose values differ from their original values.
    public var changedFields: [String] {
        fields.indices.filter { values[$0] != originalValues[$0] }.map { fields[$0].name }
    }

    /// Sets a field, checked against its definition.
    ///
    /// - Throws: ``DataTableError`` of kind ``DataTableError/Kind/unknownField``,
    ///   ``DataTableError/Kind/typeMismatch`` (the value's type does not fit the field's),
    ///   ``DataTableError/Kind/invalidValue`` (null in a required field, a string longer than the
    ///   field's size), or ``DataTableError/Kind/readOnlyField`` (a read-only or server-generated
    ///   field, a key of a stored row, or a deleted row).
    public mutating func set(_ field: String, to value: (any ODataValueConvertible)?) throws(DataTableError) {
        let position = try schema.position(of: field)
        let definition = schema.fields[position]
        guard !isDeleted else { throw DataTableError(.readOnlyField, "The row is deleted; revert it before changing \(field).") }
        if definition.readOnly {
            throw DataTableError(.readOnlyField, "The field \(field) is read-only\(definition.serverGenerated ? ": the server generates it" : "").")
        }
        if definition.key, !isNew {
            throw DataTableError(.readOnlyField, "The key field \(field) of a stored row cannot be changed; delete the row and add a new one.")
        }
        values[position] = try Self.checked(value, for: definition)
    }

    /// Checks a value against a field definition and converts it to the field's type.
    ///
    /// Conversions are OData's lossless ones (``ODataValue/converted(to:)``): an `Int` fits any
    /// integer field it is in range of, a decimal or floating-point field; a `String` fits only a
    /// string field; a `Date` a `DateTime` or `DateTimeOffset` field. Anything else is refused, so
    /// that a value never reaches the server as something other than what the column holds.
    static func checked(_ value: (any ODataValueConvertible)?, for field: DataTableField) throws(DataTableError) -> ODataValue {
        let given = value?.odataValue ?? .null
        guard !given.isNull else {
            if field.required { throw DataTableError(.invalidValue, "The field \(field.name) is required; it cannot be null.") }
            return .null
        }
        guard let converted = given.converted(to: field.type) else {
            throw DataTableError(.typeMismatch, "The field \(field.name) holds \(field.type.rawValue); \(given.type?.rawValue ?? "the value") \(given) does not fit it.")
        }
        if let size = field.size {
            switch converted {
            case .string(let text) where text.unicodeScalars.count > size:
                throw DataTableError(.invalidValue, "The field \(field.name) holds at most \(size) characters; the value has \(text.unicodeScalars.count).")
            case .binary(let data) where data.count > size:
                throw DataTableError(.invalidValue, "The field \(field.name) holds at most \(size) bytes; the value has \(data.count).")
            default: break
            }
        }
        return converted
    }

    /// Restores one field's original value.
    public mutating func revert(_ field: String) {
        guard let position = schema.positions[field] else { return }
        values[position] = originalValues[position]
    }

    /// Restores every original value and undoes ``delete()``; clears the last apply's error and conflict.
    /// An added row keeps existing until applied or cancelled with ``DataTable/cancelChanges(of:)``.
    public mutating func revert() {
        values = originalValues
        isDeleted = false
        error = nil
        conflict = nil
    }

    /// Marks the row for deletion; the next apply deletes it on the server (an added row is simply dropped).
    public mutating func delete() {
        isDeleted = true
    }
}
