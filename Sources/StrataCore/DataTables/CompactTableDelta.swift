/// What changed in data tables since a token: the `$tables?since=` answer and the data of a change
/// event (`$feed`), in the compact form with two additions (docs/design/CHANGE-FEED.md §4).
///
/// ```json
/// {"tables":[{"name":"Car","fields":[…],"rows":[[5,"Audi",18000]],"deleted":[[9]]},
///            {"name":"Person","fields":[…],"rows":[],"deleted":[]}],
///  "token":"AQ…"}
/// ```
///
/// - Each table's `deleted` member, after `rows`, lists the keys of rows deleted since the token
///   (or that the caller may no longer read) as arrays in key-field order: the values of the fields
///   flagged ``DataTableField/key``, in the order they appear in `fields`, the same shape as rows.
/// - The document's `token` resumes after this delta; a delta too large for one answer has `next`
///   (the URL of the following page) instead, and only its last page has `token`.
/// - A request for one table answers the table object alone, with `token` or `next` inside it.
///
/// The server streams the document with ``CompactTableWriter`` (``CompactTableWriter/endRows(into:)``,
/// ``CompactTableWriter/deleted(_:into:)``, ``CompactTableWriter/endDocument(token:next:into:)``);
/// both sides read it with ``decode(_:)``, so the shape is defined once.
public struct CompactTableDelta: Sendable, Hashable {
    /// The tables: upserted rows (current values) and deleted keys of each.
    public var tables: [CompactTable]
    /// The token to ask for the changes after this delta with; nil when the delta continues at ``next``.
    public var token: String?
    /// The URL of the delta's next page, when the server split it; the last page has ``token`` instead.
    public var next: String?

    /// A delta of `tables` ending at `token`, or continuing at `next`.
    public init(tables: [CompactTable], token: String? = nil, next: String? = nil) {
        self.tables = tables
        self.token = token
        self.next = next
    }

    /// The document as JSON bytes: `{"tables":[…],"token":…}`, or with `singleTable` the one table
    /// object with `token`/`next` inside it (the answer to a request for one table).
    public func jsonBytes(singleTable: Bool = false) -> [UInt8] {
        var writer = JSONWriter()
        if singleTable, tables.count == 1 {
            let table = tables[0]
            CompactTableWriter.begin(name: table.name, fields: table.fields, into: &writer)
            for row in table.rows { CompactTableWriter.row(row, into: &writer) }
            CompactTableWriter.endRows(into: &writer)
            CompactTableWriter.deleted(table.deleted ?? [], into: &writer)
            CompactTableWriter.resume(token: token, next: next, into: &writer)
            CompactTableWriter.endTable(into: &writer)
        } else {
            CompactTableWriter.beginDocument(into: &writer)
            for var table in tables {
                if table.deleted == nil { table.deleted = [] }
                table.write(to: &writer)
            }
            CompactTableWriter.endDocument(token: token, next: next, into: &writer)
        }
        return writer.bytes
    }

    /// Reads a delta document: `{"tables":[…],"token"|"next":…}` or one table object with `token` or
    /// `next` inside. A table without a `deleted` member reads as having deleted nothing (`[]`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(DataTableFormatError) -> CompactTableDelta {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw DataTableFormatError("the delta document is not JSON: \(error)")
        }
        return try decode(json)
    }

    /// Reads a delta document already parsed as JSON (see ``decode(_:)-(some Collection<UInt8>)``).
    public static func decode(_ json: JSONValue) throws(DataTableFormatError) -> CompactTableDelta {
        guard case .object(let object) = json else { throw DataTableFormatError("the delta document must be a JSON object") }
        var tables: [CompactTable] = []
        if let items = object["tables"] {
            guard case .array(let items) = items else { throw DataTableFormatError("tables must be an array") }
            for (index, item) in items.enumerated() { tables.append(try CompactTable(json: item, at: "tables[\(index)]")) }
        } else {
            tables = [try CompactTable(json: json, at: "table")]
        }
        for index in tables.indices where tables[index].deleted == nil { tables[index].deleted = [] }
        func text(_ name: String) throws(DataTableFormatError) -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let text = value.stringValue, !text.isEmpty else { throw DataTableFormatError("\(name) must be a non-empty string") }
            return text
        }
        return CompactTableDelta(tables: tables, token: try text("token"), next: try text("next"))
    }
}

extension CompactTable {
    /// The key fields (flagged ``DataTableField/key``) in field order: the order of a deleted key's values.
    public var keyFields: [DataTableField] { fields.filter(\.key) }

    /// The positions of the key fields among ``fields``.
    public var keyPositions: [Int] { fields.indices.filter { fields[$0].key } }

    /// A row's key: its key fields' values in key-field order, comparable with a ``deleted`` key.
    public func key(of row: [ODataValue]) -> [ODataValue] {
        keyPositions.map { $0 < row.count ? row[$0] : .null }
    }

    /// Reads a `deleted` member: nil when absent, else each key decoded with its key field's type.
    static func deletedKeys(_ json: JSONValue?, fields: [DataTableField], at path: String) throws(DataTableFormatError) -> [[ODataValue]]? {
        guard let json, !json.isNull else { return nil }
        guard case .array(let items) = json else { throw DataTableFormatError("\(path).deleted must be an array of keys") }
        let keyFields = fields.filter(\.key)
        if keyFields.isEmpty, !items.isEmpty {
            throw DataTableFormatError("\(path) lists deleted keys but has no key fields to read them with")
        }
        var keys: [[ODataValue]] = []
        keys.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .array(let cells) = item, cells.count == keyFields.count else {
                throw DataTableFormatError("\(path).deleted[\(index)] must be an array of \(keyFields.count) key values (\(keyFields.map(\.name).joined(separator: ", ")))")
            }
            var key: [ODataValue] = []
            key.reserveCapacity(cells.count)
            for (cell, field) in zip(cells, keyFields) {
                do {
                    key.append(try ODataJSON.decode(cell, as: field.type))
                } catch {
                    throw DataTableFormatError("\(path).deleted[\(index)].\(field.name): \(error.message)")
                }
            }
            keys.append(key)
        }
        return keys
    }
}

extension CompactTableWriter {
    /// `"deleted":[`, after ``endRows(into:)``: the start of a delta table's deleted keys.
    public static func beginDeleted(into writer: inout JSONWriter) {
        writer.key("deleted")
        writer.beginArray()
    }

    /// One deleted key: the key fields' values in key-field order.
    public static func deletedKey(_ key: [ODataValue], into writer: inout JSONWriter) {
        row(key, into: &writer)
    }

    /// `]`: the end of the deleted keys; close the table with ``endTable(into:)``.
    public static func endDeleted(into writer: inout JSONWriter) {
        writer.endArray()
    }

    /// `"deleted":[…]` in one piece, after ``endRows(into:)``.
    public static func deleted(_ keys: [[ODataValue]], into writer: inout JSONWriter) {
        beginDeleted(into: &writer)
        for key in keys { deletedKey(key, into: &writer) }
        endDeleted(into: &writer)
    }

    /// `"token":"…"` and/or `"next":"…"` as members of the object being written: the end of a delta
    /// document, or of a single table object (before ``endTable(into:)``). Nil values write nothing.
    public static func resume(token: String?, next: String?, into writer: inout JSONWriter) {
        if let next {
            writer.key("next")
            writer.string(next)
        }
        if let token {
            writer.key("token")
            writer.string(token)
        }
    }

    /// `],"token":"…"}` (or `"next"`): the end of a delta document begun with ``beginDocument(into:)``.
    public static func endDocument(token: String?, next: String?, into writer: inout JSONWriter) {
        writer.endArray()
        resume(token: token, next: next, into: &writer)
        writer.endObject()
    }
}
