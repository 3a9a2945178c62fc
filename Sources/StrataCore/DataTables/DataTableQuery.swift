import Foundation

/// The body of `POST /{service}/$sql`: a query in Strata's client SQL dialect (``ClientSQL``) and
/// the values of its `:name` parameters.
///
/// ```json
/// {"sql":"SELECT personID, lastName FROM Person WHERE lastName LIKE :pattern","parameters":{"pattern":"S%"}}
/// ```
///
/// Parameters are plain JSON values: strings, numbers, booleans and null. Whole numbers are Int64,
/// numbers with a fraction Decimal, numbers with an exponent Double. A string compared with a date,
/// time or guid column is read as that type by the checker, so dates travel as ISO 8601 text.
public struct DataTableQuery: Sendable, Hashable {
    /// The query text in Strata's client SQL dialect.
    public var sql: String
    /// The values of the query's `:name` parameters, by name.
    public var parameters: [String: ODataValue]

    /// A query with its parameter values.
    public init(sql: String, parameters: [String: ODataValue] = [:]) {
        self.sql = sql
        self.parameters = parameters
    }

    /// The request body as JSON.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sql")
        writer.string(sql)
        writer.key("parameters")
        writer.beginObject()
        for name in parameters.keys.sorted() {
            writer.key(name)
            Self.writeParameter(parameters[name]!, to: &writer)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// Parameters go as plain JSON so that the reader can type them without a schema: integers and
    /// decimals as numbers (not OData's quoted Int64), everything else in its OData JSON form.
    private static func writeParameter(_ value: ODataValue, to writer: inout JSONWriter) {
        switch value {
        case .byte, .sbyte, .int16, .int32, .int64: writer.number(value.integerValue ?? 0)
        case .decimal(let decimal): writer.raw(decimal.description)
        case .dateTime(let date): writer.string(date.isoString)
        default: ODataJSON.write(value, to: &writer)
        }
    }

    /// Reads a request body; refuses unknown members, a missing `sql` and parameters that are not plain JSON values.
    public init(json bytes: some Collection<UInt8>) throws(DataTableFormatError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, maximumDepth: 8)
        } catch {
            throw DataTableFormatError("The body is not JSON: \(error)")
        }
        guard case .object(let object) = json else { throw DataTableFormatError("The body must be an object such as {\"sql\":\"SELECT …\",\"parameters\":{}}") }
        for key in object.keys where key != "sql" && key != "parameters" {
            throw DataTableFormatError("The body has an unknown member '\(key.prefix(60))'; it holds sql and parameters")
        }
        guard let sql = object["sql"]?.stringValue else { throw DataTableFormatError("The body has no sql string") }
        var parameters: [String: ODataValue] = [:]
        switch object["parameters"] {
        case nil, .null?:
            break
        case .object(let items)?:
            for (name, item) in items {
                parameters[name] = try Self.readParameter(item, name: name)
            }
        default:
            throw DataTableFormatError("parameters must be an object of name: value")
        }
        self.init(sql: sql, parameters: parameters)
    }

    private static func readParameter(_ json: JSONValue, name: String) throws(DataTableFormatError) -> ODataValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .string(let text): return .string(text)
        case .number(let text):
            if let integer = Int64(text) { return .int64(integer) }
            if !text.contains("e"), !text.contains("E"), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                return .decimal(decimal)
            }
            if let double = Double(text), double.isFinite { return .double(double) }
            throw DataTableFormatError("The parameter \(name.prefix(60)) is a number out of range")
        case .array, .object:
            throw DataTableFormatError("The parameter \(name.prefix(60)) must be a string, number, boolean or null")
        }
    }
}
