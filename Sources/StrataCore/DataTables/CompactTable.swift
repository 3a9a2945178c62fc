/// A table in the compact form `$tables` and `$sql` answer with: a name, its field definitions,
/// and rows as arrays of values in field order.
///
/// ```json
/// {"name":"Person","fields":[{"name":"personID","type":"Edm.Int32",…}],"rows":[[1,"Ann"],[2,"Bob"]]}
/// ```
///
/// A request for several tables answers `{"tables":[…]}`; a request for one answers the table
/// object alone. Values are in OData verbose JSON form. The server writes rows as they stream
/// from the database through ``CompactTableWriter``; both sides read documents with ``decode(_:)``.
public struct CompactTable: Sendable, Hashable {
    /// The table's name: an entity set, or `Query` for a result of several tables.
    public var name: String
    /// The field definitions, in column order.
    public var fields: [DataTableField]
    /// Each row holds one value per field, in field order.
    public var rows: [[ODataValue]]
    /// In a delta (`$tables?since=`, a change event): the keys of rows deleted since the token, or
    /// that left what the caller may read, each in key-field order (``keyFields``). Nil for a table
    /// that is not a delta, so that it writes no `deleted` member (see CompactTableDelta.swift).
    public var deleted: [[ODataValue]]?

    /// A table; each row must hold one value per field, each deleted key one value per key field.
    public init(name: String, fields: [DataTableField], rows: [[ODataValue]] = [], deleted: [[ODataValue]]? = nil) {
        self.name = name
        self.fields = fields
        self.rows = rows
        self.deleted = deleted
    }

    /// The whole table as JSON bytes (the writer's output for a table read in one piece).
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// Writes the table object.
    public func write(to writer: inout JSONWriter) {
        CompactTableWriter.begin(name: name, fields: fields, into: &writer)
        for row in rows { CompactTableWriter.row(row, into: &writer) }
        CompactTableWriter.endRows(into: &writer)
        if let deleted { CompactTableWriter.deleted(deleted, into: &writer) }
        CompactTableWriter.endTable(into: &writer)
    }

    /// `{"tables":[…]}` for several tables.
    public static func documentBytes(_ tables: [CompactTable]) -> [UInt8] {
        var writer = JSONWriter()
        CompactTableWriter.beginDocument(into: &writer)
        for table in tables { table.write(to: &writer) }
        CompactTableWriter.endDocument(into: &writer)
        return writer.bytes
    }

    /// Reads a response: `{"tables":[…]}` or a single table object, as a list of tables.
    public static func decode(_ bytes: some Collection<UInt8>) throws(DataTableFormatError) -> [CompactTable] {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw DataTableFormatError("the table document is not JSON: \(error)")
        }
        guard case .object(let object) = json else { throw DataTableFormatError("the table document must be a JSON object") }
        if let tables = object["tables"] {
            guard case .array(let items) = tables else { throw DataTableFormatError("tables must be an array") }
            var decoded: [CompactTable] = []
            for (index, item) in items.enumerated() { decoded.append(try CompactTable(json: item, at: "tables[\(index)]")) }
            return decoded
        }
        return [try CompactTable(json: json, at: "table")]
    }

    /// Reads one table object.
    public init(json: JSONValue, at path: String) throws(DataTableFormatError) {
        guard case .object(let object) = json else { throw DataTableFormatError("\(path) must be a table object") }
        guard let name = object["name"]?.stringValue else { throw DataTableFormatError("\(path) has no name") }
        guard case .array(let fieldItems)? = object["fields"] else { throw DataTableFormatError("\(path) (\(name)) has no fields array") }
        var fields: [DataTableField] = []
        for (index, item) in fieldItems.enumerated() { fields.append(try DataTableField(json: item, at: "\(path).fields[\(index)]")) }
        var rows: [[ODataValue]] = []
        switch object["rows"] {
        case .array(let rowItems)?:
            rows.reserveCapacity(rowItems.count)
            for (index, rowItem) in rowItems.enumerated() {
                rows.append(try Self.row(rowItem, fields: fields, at: "\(path).rows[\(index)]"))
            }
        case nil, .null?:
            break
        default:
            throw DataTableFormatError("\(path).rows must be an array")
        }
        let deleted = try Self.deletedKeys(object["deleted"], fields: fields, at: "\(path) (\(name))")
        self.init(name: name, fields: fields, rows: rows, deleted: deleted)
    }

    /// Reads one row: an array of one value per field, each decoded with its field's type.
    /// - Parameter path: where the row is, for an error's message (built only for one).
    static func row(_ json: JSONValue, fields: [DataTableField], at path: @autoclosure () -> String) throws(DataTableFormatError) -> [ODataValue] {
        guard case .array(let cells) = json, cells.count == fields.count else {
            throw DataTableFormatError("\(path()) must be an array of \(fields.count) values")
        }
        var row: [ODataValue] = []
        row.reserveCapacity(cells.count)
        for (cell, field) in zip(cells, fields) {
            do {
                row.append(try ODataJSON.decode(cell, as: field.type))
            } catch {
                throw DataTableFormatError("\(path()).\(field.name): \(error.message)")
            }
        }
        return row
    }
}

/// Writes compact tables piece by piece, so a server can stream rows as it reads them: the header
/// with the field definitions, then each row, then the end. The `tables` wrapper goes around several.
public enum CompactTableWriter {
    /// `{"tables":[`
    public static func beginDocument(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("tables")
        writer.beginArray()
    }

    /// `]}`
    public static func endDocument(into writer: inout JSONWriter) {
        writer.endArray()
        writer.endObject()
    }

    /// `{"name":…,"fields":[…],"rows":[`
    public static func begin(name: String, fields: [DataTableField], into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(name)
        writer.key("fields")
        writer.beginArray()
        for field in fields { field.write(to: &writer) }
        writer.endArray()
        writer.key("rows")
        writer.beginArray()
    }

    /// One row: its values in field order.
    public static func row(_ values: [ODataValue], into writer: inout JSONWriter) {
        writer.beginArray()
        for value in values { ODataJSON.write(value, to: &writer) }
        writer.endArray()
    }

    /// One row: the values at `positions`, in that order (a row read with more columns than the
    /// table has fields, without copying the fields' values out first).
    public static func row(_ values: [ODataValue], at positions: [Int], into writer: inout JSONWriter) {
        writer.beginArray()
        for position in positions { ODataJSON.write(values[position], to: &writer) }
        writer.endArray()
    }

    /// `]}`: the end of the rows and of the table.
    public static func end(into writer: inout JSONWriter) {
        endRows(into: &writer)
        endTable(into: &writer)
    }

    /// `]`: the end of the rows, before a delta's `deleted` keys (``beginDeleted(into:)``) or a
    /// single table's `token` (``token(_:into:)``); close the table with ``endTable(into:)``.
    public static func endRows(into writer: inout JSONWriter) {
        writer.endArray()
    }

    /// `}`: the end of a table object whose rows were closed with ``endRows(into:)``.
    public static func endTable(into writer: inout JSONWriter) {
        writer.endObject()
    }
}
