import Foundation
import StrataCore

/// Tables with their pending changes and named properties, saved to a file for offline work and
/// loaded back later, as Data Abstract's briefcases.
///
/// ```swift
/// var briefcase = Briefcase()
/// briefcase["Person"] = people                  // edits included
/// briefcase.properties["lastSync"] = "2024-05-01T10:00:00Z"
/// try briefcase.write(to: fileURL)              // atomically: the old file or the new, never half
/// let restored = try Briefcase(contentsOf: fileURL)
/// var people = restored["Person"]!              // same rows, states, originals, temporary keys
/// ```
public struct Briefcase: Sendable {
    /// The tables, in the order they were added.
    public private(set) var tables: [DataTable] = []
    /// Named values the app keeps with the tables (who, when, which filter).
    public var properties: [String: String] = [:]

    static let format = "strata-briefcase"
    static let version = 1

    /// A briefcase holding `tables` (a later table of the same name replaces an earlier one) and `properties`.
    public init(tables: [DataTable] = [], properties: [String: String] = [:]) {
        for table in tables { self[table.name] = table }
        self.properties = properties
    }

    /// The table with this name; setting replaces it (or adds it at the end), nil removes it.
    public subscript(name: String) -> DataTable? {
        get { tables.first { $0.name == name } }
        set {
            let index = tables.firstIndex { $0.name == name }
            switch (index, newValue) {
            case let (index?, table?): tables[index] = table
            case let (nil, table?): tables.append(table)
            case let (index?, nil): tables.remove(at: index)
            case (nil, nil): break
            }
        }
    }

    // MARK: Files

    /// Writes the briefcase to a file atomically: readers see the previous file or the complete new one.
    public func write(to url: URL) throws(DataTableError) {
        do {
            try Data(encoded()).write(to: url, options: .atomic)
        } catch {
            throw DataTableError(.briefcase, "The briefcase could not be written to \(url.path): \(error.localizedDescription)")
        }
    }

    /// Reads a briefcase written by ``write(to:)``.
    public init(contentsOf url: URL) throws(DataTableError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DataTableError(.briefcase, "The briefcase \(url.path) could not be read: \(error.localizedDescription)")
        }
        try self.init(encoded: Array(data))
    }

    /// The briefcase as JSON: the compact field definitions, and each row with its id, flags,
    /// current and original values, and the last apply's error or conflict.
    func encoded() -> [UInt8] {
        var writer = JSONWriter(capacity: 64 * 1024)
        writer.beginObject()
        writer.key("format")
        writer.string(Self.format)
        writer.key("version")
        writer.number(Self.version)
        writer.key("properties")
        writer.beginObject()
        for name in properties.keys.sorted() {
            writer.key(name)
            writer.string(properties[name]!)
        }
        writer.endObject()
        writer.key("tables")
        writer.beginArray()
        for table in tables { Self.write(table, to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ table: DataTable, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(table.name)
        writer.key("nextTemporaryKey")
        writer.number(table.temporaryKeyCounter)
        writer.key("fields")
        writer.beginArray()
        for field in table.fields { field.write(to: &writer) }
        writer.endArray()
        writer.key("rows")
        writer.beginArray()
        for row in table.storage {
            writer.beginObject()
            writer.key("id")
            writer.number(row.id)
            writer.key("new")
            writer.bool(row.isNew)
            writer.key("deleted")
            writer.bool(row.isDeleted)
            writer.key("values")
            CompactTableWriter.row(row.values, into: &writer)
            writer.key("original")
            CompactTableWriter.row(row.originalValues, into: &writer)
            if let error = row.error {
                writer.key("error")
                writer.string(error.message)
            }
            if let conflict = row.conflict {
                writer.key("conflict")
                writer.beginObject()
                writer.key("message")
                writer.string(conflict.message)
                writer.key("server")
                if let server = conflict.server { DataTableValuesFormat.write(server, to: &writer) } else { writer.null() }
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    init(encoded bytes: [UInt8]) throws(DataTableError) {
        do {
            let json = try JSONValue.parse(bytes)
            guard json["format"]?.stringValue == Self.format, let version = json["version"]?.intValue else {
                throw DataTableFormatError("the file is not a Strata briefcase")
            }
            guard version <= Self.version else {
                throw DataTableFormatError("the briefcase was written by a newer version (\(version)) of StrataClient")
            }
            var properties: [String: String] = [:]
            for (name, value) in json["properties"]?.objectValue ?? JSONObject() {
                properties[name] = value.stringValue
            }
            var tables: [DataTable] = []
            for (index, item) in (json["tables"]?.arrayValue ?? []).enumerated() {
                tables.append(try Self.table(item, at: "tables[\(index)]"))
            }
            self.init(tables: tables, properties: properties)
        } catch let error as DataTableFormatError {
            throw DataTableError(.briefcase, "The briefcase cannot be read: \(error.message).")
        } catch {
            throw DataTableError(.briefcase, "The briefcase cannot be read: \(error).")
        }
    }

    private static func table(_ json: JSONValue, at path: String) throws(DataTableFormatError) -> DataTable {
        let header = try CompactTable(json: .object(JSONObject([("name", json["name"] ?? .null), ("fields", json["fields"] ?? .null)])), at: path)
        let schema = DataTableSchema(fields: header.fields)
        let type: (String) -> EDMPrimitiveType? = { name in schema.positions[name].map { schema.fields[$0].type } }
        var rows: [DataTableRow] = []
        for (index, item) in (json["rows"]?.arrayValue ?? []).enumerated() {
            let at = "\(path).rows[\(index)]"
            guard let id = item["id"]?.intValue else { throw DataTableFormatError("\(at) has no id") }
            var row = DataTableRow(id: id, schema: schema, values: try values(item["values"], schema, at: at + ".values"),
                                   isNew: item["new"]?.boolValue ?? false)
            row.originalValues = try values(item["original"], schema, at: at + ".original")
            row.isDeleted = item["deleted"]?.boolValue ?? false
            if let message = item["error"]?.stringValue { row.error = DataTableError(.rejected, message) }
            if let conflict = item["conflict"], !conflict.isNull {
                let server = conflict["server"].flatMap { $0.isNull ? nil : $0 }
                row.conflict = DataTableConflict(
                    mine: Dictionary(uniqueKeysWithValues: zip(schema.fields.map(\.name), row.values)),
                    original: Dictionary(uniqueKeysWithValues: zip(schema.fields.map(\.name), row.originalValues)),
                    server: try server.map { json throws(DataTableFormatError) in try DataTableValuesFormat.read(json, at: at + ".conflict.server", type: type) },
                    message: conflict["message"]?.stringValue ?? "")
            }
            rows.append(row)
        }
        let counter = json["nextTemporaryKey"]?.int64Value ?? -1
        return DataTable(name: header.name, schema: schema, rows: rows, nextTemporaryKey: min(counter, -1))
    }

    private static func values(_ json: JSONValue?, _ schema: DataTableSchema, at path: String) throws(DataTableFormatError) -> [ODataValue] {
        guard case .array(let cells)? = json, cells.count == schema.fields.count else {
            throw DataTableFormatError("\(path) must hold \(schema.fields.count) values")
        }
        var values: [ODataValue] = []
        for (cell, field) in zip(cells, schema.fields) {
            do {
                values.append(try ODataJSON.decode(cell, as: field.type))
            } catch {
                throw DataTableFormatError("\(path).\(field.name): \(error.message)")
            }
        }
        return values
    }
}
