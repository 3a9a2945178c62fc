/// Field values of one row, by field name: a change's key, original and new values, a stored row.
///
/// On the wire a JSON object whose values are in OData verbose JSON form (``ODataJSON``), so that
/// Int64 and Decimal keep every digit and dates read the same as in an OData response.
public typealias DataTableValues = [String: ODataValue]

/// Writing and reading ``DataTableValues`` objects.
public enum DataTableValuesFormat {
    /// Writes the values as an object; names in `order` come first in that order, the rest sorted,
    /// so the same values always produce the same bytes.
    public static func write(_ values: DataTableValues, order: [String] = [], to writer: inout JSONWriter) {
        writer.beginObject()
        var written = Set<String>()
        for name in order {
            guard let value = values[name], written.insert(name).inserted else { continue }
            writer.key(name)
            ODataJSON.write(value, to: &writer)
        }
        for name in values.keys.sorted() where !written.contains(name) {
            writer.key(name)
            ODataJSON.write(values[name]!, to: &writer)
        }
        writer.endObject()
    }

    /// Reads an object of values; `type` gives each field's EDM type, nil for a field that does not exist.
    /// A missing or null `json` reads as no values.
    public static func read(_ json: JSONValue?, at path: String,
                            type: (String) -> EDMPrimitiveType?) throws(DataTableFormatError) -> DataTableValues {
        guard let json, !json.isNull else { return [:] }
        guard case .object(let object) = json else { throw DataTableFormatError("\(path) must be an object of field values") }
        var values: DataTableValues = [:]
        for (name, item) in object {
            guard let fieldType = type(name) else { throw DataTableFormatError("\(path) names the field '\(name.prefix(100))', which does not exist") }
            do {
                values[name] = try ODataJSON.decode(item, as: fieldType)
            } catch {
                throw DataTableFormatError("\(path).\(name.prefix(100)): \(error.message)")
            }
        }
        return values
    }
}
