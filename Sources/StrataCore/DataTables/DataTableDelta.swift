/// The changes a client sends to `POST /{service}/$changes`: the Data Abstract sample's `applyChanges`.
///
/// ```json
/// {"mode":"allOrNothing","changes":[
///   {"id":"1","table":"Person","kind":"insert","key":{"personID":-1},"values":{"firstName":"Ann","lastName":"Lee"}},
///   {"id":"2","table":"PersonCar","kind":"insert","key":{"personCarID":-2},"values":{"personID":-1,"carID":5}},
///   {"id":"3","table":"Person","kind":"update","key":{"personID":7},"original":{"lastName":"Smith"},"values":{"lastName":"Smyth"}},
///   {"id":"4","table":"Car","kind":"delete","key":{"carID":9},"original":{"make":"Ford"}}]}
/// ```
///
/// `original` holds the values the client read for the fields it changed (or, for a delete, any
/// fields it wants checked); the server reports a conflict when the stored row differs. A negative
/// key in a server-generated key field of an insert is temporary: the server lets the database
/// choose the key, rewrites other changes' fields that refer to the temporary key, and reports
/// the mapping (``DataTableChangeResponse/keys``).
public struct DataTableDelta: Sendable, Hashable {
    /// How the server applies the changes.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// All changes in one transaction: one failure or conflict and none is kept (the default).
        case allOrNothing
        /// Each change in a transaction of its own: every change that can be applied is.
        case independent
    }

    /// All-or-nothing (one transaction) or independent (one transaction per change).
    public var mode: Mode
    /// The changes, in the order the client made them.
    public var changes: [DataTableChange]

    /// A delta of `changes`, all-or-nothing unless told otherwise.
    public init(mode: Mode = .allOrNothing, changes: [DataTableChange]) {
        self.mode = mode
        self.changes = changes
    }

    /// The delta as JSON bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("mode")
        writer.string(mode.rawValue)
        writer.key("changes")
        writer.beginArray()
        for change in changes { change.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Reads a delta. `fieldTypes` answers the fields of a table by name (nil for a table that does
    /// not exist), so every value is read as its field's type; unknown tables and fields, duplicate
    /// change ids and malformed members are errors that name the change.
    public init(json bytes: some Collection<UInt8>,
                fieldTypes: (String) -> [String: EDMPrimitiveType]?) throws(DataTableFormatError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, maximumDepth: 16)
        } catch {
            throw DataTableFormatError("The delta is not JSON: \(error)")
        }
        guard case .object(let object) = json else { throw DataTableFormatError("The delta must be a JSON object with a changes array") }
        for key in object.keys where key != "mode" && key != "changes" {
            throw DataTableFormatError("The delta has an unknown member '\(key.prefix(60))'; it holds mode and changes")
        }
        var mode = Mode.allOrNothing
        if let modeJSON = object["mode"], !modeJSON.isNull {
            guard let text = modeJSON.stringValue, let parsed = Mode(rawValue: text) else {
                throw DataTableFormatError("mode must be \"allOrNothing\" or \"independent\"")
            }
            mode = parsed
        }
        guard case .array(let items)? = object["changes"] else { throw DataTableFormatError("The delta has no changes array") }
        var changes: [DataTableChange] = []
        var ids = Set<String>()
        for (index, item) in items.enumerated() {
            let change = try DataTableChange(json: item, at: "changes[\(index)]", fieldTypes: fieldTypes)
            guard ids.insert(change.id).inserted else { throw DataTableFormatError("changes[\(index)] repeats the id '\(change.id.prefix(60))'") }
            changes.append(change)
        }
        self.init(mode: mode, changes: changes)
    }
}

/// One change of a delta: an insert, update or delete of one row.
public struct DataTableChange: Sendable, Hashable {
    /// What a change does to its row.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case insert, update, delete
    }

    /// The client's name for the change; its result carries the same id.
    public var id: String
    /// The table (entity set) the row belongs to.
    public var table: String
    /// Insert, update or delete.
    public var kind: Kind
    /// The row's key fields; for an insert, a temporary (negative) or chosen key, or empty.
    public var key: DataTableValues
    /// The values the client read, compared with the stored row to detect conflicts.
    public var original: DataTableValues
    /// The new values: every field of an insert, the changed fields of an update; empty for a delete.
    public var values: DataTableValues

    /// A change; see the properties for what each part holds.
    public init(id: String, table: String, kind: Kind, key: DataTableValues = [:], original: DataTableValues = [:], values: DataTableValues = [:]) {
        self.id = id
        self.table = table
        self.kind = kind
        self.key = key
        self.original = original
        self.values = values
    }

    /// Writes the change object; empty originals and values are left out.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("table")
        writer.string(table)
        writer.key("kind")
        writer.string(kind.rawValue)
        writer.key("key")
        DataTableValuesFormat.write(key, to: &writer)
        if !original.isEmpty {
            writer.key("original")
            DataTableValuesFormat.write(original, to: &writer)
        }
        if !values.isEmpty {
            writer.key("values")
            DataTableValuesFormat.write(values, to: &writer)
        }
        writer.endObject()
    }

    /// Reads one change object (as ``write(to:)`` writes it); `path` names it in errors.
    public init(json: JSONValue, at path: String, fieldTypes: (String) -> [String: EDMPrimitiveType]?) throws(DataTableFormatError) {
        guard case .object(let object) = json else { throw DataTableFormatError("\(path) must be a change object") }
        let id: String
        switch object["id"] {
        case .string(let text)?: id = text
        case .number(let text)?: id = text
        default: throw DataTableFormatError("\(path) has no id (a string the result will repeat)")
        }
        let at = "change '\(id.prefix(60))'"
        for key in object.keys where !["id", "table", "kind", "key", "original", "values"].contains(key) {
            throw DataTableFormatError("\(at) has an unknown member '\(key.prefix(60))'")
        }
        guard let table = object["table"]?.stringValue else { throw DataTableFormatError("\(at) names no table") }
        guard let types = fieldTypes(table) else { throw DataTableFormatError("\(at) names the table '\(table.prefix(100))', which does not exist") }
        guard let kindText = object["kind"]?.stringValue, let kind = Kind(rawValue: kindText) else {
            throw DataTableFormatError("\(at) has no kind; kind is insert, update or delete")
        }
        let type: (String) -> EDMPrimitiveType? = { types[$0] }
        let key = try DataTableValuesFormat.read(object["key"], at: "\(at).key", type: type)
        let original = try DataTableValuesFormat.read(object["original"], at: "\(at).original", type: type)
        let values = try DataTableValuesFormat.read(object["values"], at: "\(at).values", type: type)
        if kind != .insert, key.isEmpty { throw DataTableFormatError("\(at) is an \(kind.rawValue) without a key") }
        if kind == .delete, !values.isEmpty { throw DataTableFormatError("\(at) is a delete with values; a delete sends only its key and original values") }
        self.init(id: id, table: table, kind: kind, key: key, original: original, values: values)
    }
}
