import StrataCore
import StrataSQL
import StrataOData

/// The field definitions of compact tables, from the service's model: what a client needs to
/// edit rows and send them back (types, sizes, keys, what it may not change).
package enum TableFields {
    /// The field for a column of an entity set.
    ///
    /// `required` means the column cannot hold null. `readOnly` marks what a change may never set:
    /// every column of a read-only set (a view, a table without key) and server-generated columns
    /// (a temporary key stands in for those on insert), except generated keys of a service that lets
    /// clients choose them (``ServiceSettings/allowClientKeys``), which inserts may set — the same
    /// rule the writes apply (``GeneratedValues``).
    package static func field(_ property: EntityProperty, of type: EntityType, in set: EntitySet, allowClientKeys: Bool) -> DataTableField {
        DataTableField(
            name: property.name, type: property.type, size: property.maxLength, required: !property.isNullable,
            key: type.keyNames.contains(property.name),
            readOnly: set.isReadOnly || !GeneratedValues.acceptsClientValue(property, of: type, allowClientKeys: allowClientKeys),
            serverGenerated: property.isServerGenerated)
    }

    /// The fields of a checked client SQL result.
    ///
    /// A result can be edited and sent back as changes to its table when it reads exactly one table,
    /// and every key column of that table is among its columns under its own name. Then a column
    /// that is a plain reference to a column of that table, under that column's name, describes
    /// itself as that column; every other column (expressions, aliases, joined or aggregated
    /// results) is read-only.
    static func fields(for statement: SQLCheckedStatement, model: ServiceModel, allowClientKeys: Bool) -> (name: String, fields: [DataTableField]) {
        let tableNames = Set(statement.tables.map(\.table))
        let single = tableNames.count == 1 ? statement.tables.first?.table : nil
        let set = single.flatMap { model.entitySet(named: $0) }
        let type = set.map { model.entityType(of: $0) }
        let editable: Bool = {
            guard let type, statement.tables.count == 1 else { return false }
            return type.keyNames.allSatisfy { key in
                statement.columns.contains { $0.name == key && $0.source?.column == key }
            }
        }()
        let fields = statement.columns.map { column -> DataTableField in
            if editable, let set, let type, let source = column.source, source.column == column.name,
               let property = type.property(named: source.column), property.type == column.type {
                return field(property, of: type, in: set, allowClientKeys: allowClientKeys)
            }
            return DataTableField(name: column.name, type: column.type, readOnly: true)
        }
        return (single ?? "Query", fields)
    }
}
