/// The server's answer to a delta: one result per change, in the delta's order, and the keys the
/// database assigned in place of temporary ones.
///
/// ```json
/// {"results":[{"id":"1","status":"applied","row":{"personID":1001,"firstName":"Ann",…},"serverRow":null,"message":null},
///             {"id":"3","status":"conflict","row":null,"serverRow":{"personID":7,"lastName":"Smithe",…},
///              "message":"Person(7) changed since it was read: lastName"}],
///  "keys":{"Person":[{"temporary":{"personID":-1},"key":{"personID":1001}}]}}
/// ```
public struct DataTableChangeResponse: Sendable, Hashable {
    /// One result per change, in the order of the delta.
    public var results: [DataTableChangeResult]
    /// Temporary keys replaced by the keys the database chose, by table, in the order of the inserts.
    public var keys: [String: [KeyAssignment]]

    /// A response with these results and key assignments.
    public init(results: [DataTableChangeResult], keys: [String: [KeyAssignment]] = [:]) {
        self.results = results
        self.keys = keys
    }

    /// A temporary key and the key it became.
    public struct KeyAssignment: Sendable, Hashable {
        /// The key the client sent, by key field.
        public var temporary: DataTableValues
        /// The key the database chose, by key field.
        public var key: DataTableValues

        /// A temporary key and the stored key that replaced it.
        public init(temporary: DataTableValues, key: DataTableValues) {
            self.temporary = temporary
            self.key = key
        }
    }

    /// The response as JSON, as the server sends it.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for result in results { result.write(to: &writer) }
        writer.endArray()
        writer.key("keys")
        writer.beginObject()
        for table in keys.keys.sorted() {
            writer.key(table)
            writer.beginArray()
            for assignment in keys[table]! {
                writer.beginObject()
                writer.key("temporary")
                DataTableValuesFormat.write(assignment.temporary, to: &writer)
                writer.key("key")
                DataTableValuesFormat.write(assignment.key, to: &writer)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// Reads a response to `delta`: each result's rows are read with the fields of its change's
    /// table, which `fieldTypes` gives by table name.
    public init(json bytes: some Collection<UInt8>, delta: DataTableDelta,
                fieldTypes: (String) -> [String: EDMPrimitiveType]?) throws(DataTableFormatError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw DataTableFormatError("the change results are not JSON: \(error)")
        }
        guard case .array(let items)? = json["results"] else { throw DataTableFormatError("the change results have no results array") }
        var tableOfChange: [String: String] = [:]
        for change in delta.changes { tableOfChange[change.id] = change.table }
        var results: [DataTableChangeResult] = []
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item, let id = object["id"]?.stringValue else {
                throw DataTableFormatError("results[\(index)] has no id")
            }
            guard let statusText = object["status"]?.stringValue, let status = DataTableChangeResult.Status(rawValue: statusText) else {
                throw DataTableFormatError("results[\(index)] has no status (applied, failed or conflict)")
            }
            guard let table = tableOfChange[id], let types = fieldTypes(table) else {
                throw DataTableFormatError("results[\(index)] answers the change '\(id.prefix(60))', which was not sent")
            }
            let type: (String) -> EDMPrimitiveType? = { types[$0] }
            let row = object["row"].flatMap { $0.isNull ? nil : $0 }
            let serverRow = object["serverRow"].flatMap { $0.isNull ? nil : $0 }
            results.append(DataTableChangeResult(
                id: id, status: status,
                row: try row.map { json throws(DataTableFormatError) in try DataTableValuesFormat.read(json, at: "results[\(index)].row", type: type) },
                serverRow: try serverRow.map { json throws(DataTableFormatError) in
                    try DataTableValuesFormat.read(json, at: "results[\(index)].serverRow", type: type)
                },
                message: object["message"]?.stringValue))
        }
        var keys: [String: [KeyAssignment]] = [:]
        if case .object(let tables)? = json["keys"] {
            for (table, list) in tables {
                guard let types = fieldTypes(table), case .array(let assignments) = list else { continue }
                let type: (String) -> EDMPrimitiveType? = { types[$0] }
                for (index, assignment) in assignments.enumerated() {
                    keys[table, default: []].append(KeyAssignment(
                        temporary: try DataTableValuesFormat.read(assignment["temporary"], at: "keys.\(table)[\(index)].temporary", type: type),
                        key: try DataTableValuesFormat.read(assignment["key"], at: "keys.\(table)[\(index)].key", type: type)))
                }
            }
        }
        self.init(results: results, keys: keys)
    }
}

/// What became of one change.
public struct DataTableChangeResult: Sendable, Hashable {
    /// The outcome of one change.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The change is stored; ``DataTableChangeResult/row`` is the row as stored (nil for a delete).
        case applied
        /// The change was refused or, in an all-or-nothing delta, rolled back with the others;
        /// ``DataTableChangeResult/message`` says why.
        case failed
        /// The stored row no longer has the change's original values (or no longer exists);
        /// ``DataTableChangeResult/serverRow`` is the row as stored now.
        case conflict
    }

    /// The id of the change this result answers.
    public var id: String
    /// Applied, failed or conflict.
    public var status: Status
    /// The row as stored after an applied insert or update: generated keys, defaults and
    /// trigger-set values included.
    public var row: DataTableValues?
    /// The current row, for a conflict; nil when the row no longer exists.
    public var serverRow: DataTableValues?
    /// Why the change failed or conflicted.
    public var message: String?

    /// A result for the change with this id.
    public init(id: String, status: Status, row: DataTableValues? = nil, serverRow: DataTableValues? = nil, message: String? = nil) {
        self.id = id
        self.status = status
        self.row = row
        self.serverRow = serverRow
        self.message = message
    }

    /// Writes the result object.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("status")
        writer.string(status.rawValue)
        writer.key("row")
        if let row { DataTableValuesFormat.write(row, to: &writer) } else { writer.null() }
        writer.key("serverRow")
        if let serverRow { DataTableValuesFormat.write(serverRow, to: &writer) } else { writer.null() }
        writer.key("message")
        if let message { writer.string(message) } else { writer.null() }
        writer.endObject()
    }
}
