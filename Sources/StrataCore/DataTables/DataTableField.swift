/// One column of a data table as the compact table format describes it: the field definitions
/// of the Data Abstract sample's `DADataTable`, shared by the server that writes them and the client that reads them.
///
/// On the wire a field is `{"name":"personID","type":"Edm.Int32","size":null,"required":true,
/// "key":true,"readOnly":false,"serverGenerated":true}`.
public struct DataTableField: Sendable, Hashable {
    /// The field's name: the column's name, or a query's result column name.
    public var name: String
    /// The EDM type every value of the field has (or null).
    public var type: EDMPrimitiveType
    /// The longest string (characters) or binary (bytes) the column holds; nil when unbounded.
    public var size: Int?
    /// The column cannot hold null.
    public var required: Bool
    /// The field is part of the table's key.
    public var key: Bool
    /// The field cannot be changed through the data table (a computed query column, a read-only
    /// table or a server-generated value; a generated key is not read-only where the service lets
    /// clients choose such keys, and then an insert may give it).
    public var readOnly: Bool
    /// The database produces the value on insert (autoincrement or identity); inserts may leave it
    /// out or send a temporary negative key in its place.
    public var serverGenerated: Bool

    /// A field definition; the flags default to false.
    public init(name: String, type: EDMPrimitiveType, size: Int? = nil, required: Bool = false, key: Bool = false,
                readOnly: Bool = false, serverGenerated: Bool = false) {
        self.name = name
        self.type = type
        self.size = size
        self.required = required
        self.key = key
        self.readOnly = readOnly
        self.serverGenerated = serverGenerated
    }

    /// Writes the field as its JSON object.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(name)
        writer.key("type")
        writer.string(type.rawValue)
        writer.key("size")
        if let size { writer.number(size) } else { writer.null() }
        writer.key("required")
        writer.bool(required)
        writer.key("key")
        writer.bool(key)
        writer.key("readOnly")
        writer.bool(readOnly)
        writer.key("serverGenerated")
        writer.bool(serverGenerated)
        writer.endObject()
    }

    /// Reads a field object; `name` and `type` are required, the flags default to false.
    public init(json: JSONValue, at path: String) throws(DataTableFormatError) {
        guard case .object(let object) = json else { throw DataTableFormatError("\(path) must be a field object") }
        guard let name = object["name"]?.stringValue, !name.isEmpty else {
            throw DataTableFormatError("\(path) has no name")
        }
        guard let typeName = object["type"]?.stringValue, let type = EDMPrimitiveType(name: typeName) else {
            throw DataTableFormatError("\(path) (\(name)) has no EDM type such as \"Edm.Int32\"")
        }
        var size: Int?
        if let sizeJSON = object["size"], !sizeJSON.isNull {
            guard let value = sizeJSON.intValue, value >= 0 else { throw DataTableFormatError("\(path).size must be a whole number or null") }
            size = value
        }
        func flag(_ key: String) throws(DataTableFormatError) -> Bool {
            guard let value = object[key], !value.isNull else { return false }
            guard let bool = value.boolValue else { throw DataTableFormatError("\(path).\(key) must be true or false") }
            return bool
        }
        self.init(name: name, type: type, size: size, required: try flag("required"), key: try flag("key"),
                  readOnly: try flag("readOnly"), serverGenerated: try flag("serverGenerated"))
    }
}

/// A document in the data table formats (tables, deltas, results) that does not have the expected
/// shape. The server answers it with 400; the client reports it as an invalid response.
public struct DataTableFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the member concerned.
    public var message: String

    /// An error with this message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The 400 a server answers for a malformed request document.
    public var odataError: ODataError { .badRequest(message + ".", code: "InvalidDataTableDocument") }
}
