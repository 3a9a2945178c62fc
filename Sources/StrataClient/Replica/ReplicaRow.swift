import StrataCore

/// A row as a ``Replica`` shows it: the server's values with this device's unsent changes applied.
public struct ReplicaRow: Sendable, Hashable, Identifiable {
    /// The table's fields, in column order.
    public let fields: [DataTableField]
    /// One value per field.
    public let values: [ODataValue]
    /// True while the row has a local change the server has not acknowledged.
    public let hasPendingChanges: Bool
    /// The key: stable across syncs, except that a row inserted here gets the server's key when
    /// its insert is acknowledged (a negative temporary key before).
    public let id: [ODataValue]

    init(fields: [DataTableField], values: [ODataValue], hasPendingChanges: Bool, id: [ODataValue]) {
        self.fields = fields
        self.values = values
        self.hasPendingChanges = hasPendingChanges
        self.id = id
    }

    /// The key fields' values: what ``Replica/update(_:key:_:)`` and ``Replica/delete(from:key:)`` take.
    public var key: DataTableValues {
        var key: DataTableValues = [:]
        for (field, value) in zip(fields, values) where field.key { key[field.name] = value }
        return key
    }

    /// The value of a field; nil for a name that is not a field.
    public subscript(_ name: String) -> ODataValue? {
        fields.firstIndex { $0.name == name }.map { values[$0] }
    }

    /// All values by field name.
    public var dictionary: DataTableValues {
        Dictionary(uniqueKeysWithValues: zip(fields.map(\.name), values))
    }
}
