import StrataCore

extension ServiceOpenAPI {
    /// The schema of one property's value as the service writes it (and reads it back) in its
    /// default JSON: V2 writes Int64 and Decimal as strings and dates as `/Date(ms)/`; V4 writes
    /// numbers and ISO 8601. Both write the non-finite doubles as `NaN`, `INF` and `-INF`.
    func valueSchema(_ property: EntityProperty) -> OpenAPISchema {
        var schema = primitiveSchema(property.type)
        if property.type == .string, let maxLength = property.maxLength { schema.maxLength = maxLength }
        schema.examples = example(property).map { [$0] }
        return property.isNullable ? schema.nullable : schema
    }

    func primitiveSchema(_ type: EDMPrimitiveType) -> OpenAPISchema {
        var schema: OpenAPISchema
        switch type {
        case .boolean: schema = OpenAPISchema(type: .boolean)
        case .byte: schema = integer(0, 255)
        case .sbyte: schema = integer(-128, 127)
        case .int16: schema = integer(Int64(Int16.min), Int64(Int16.max))
        case .int32: schema = integer(Int64(Int32.min), Int64(Int32.max), format: "int32")
        case .int64:
            if isV4 { return integer(Int64.min, Int64.max, format: "int64") }
            schema = OpenAPISchema(type: .string, format: "int64", description: "A 64-bit integer, written as a string.")
            schema.pattern = "^-?[0-9]+$"
        case .decimal:
            if isV4 { return OpenAPISchema(type: .number, format: "decimal") }
            schema = OpenAPISchema(type: .string, format: "decimal", description: "A decimal number, written as a string.")
            schema.pattern = "^-?[0-9]+(\\.[0-9]+)?$"
        case .double, .single:
            schema = OpenAPISchema()
            var nonFinite = OpenAPISchema(type: .string)
            nonFinite.enum = [.string("NaN"), .string("INF"), .string("-INF")]
            schema.anyOf = [OpenAPISchema(type: .number, format: type == .double ? "double" : "float"), nonFinite]
        case .string: schema = OpenAPISchema(type: .string)
        case .dateTime:
            if isV4 { return OpenAPISchema(type: .string, format: "date-time") }
            schema = OpenAPISchema(type: .string, description: "Milliseconds since 1970 in UTC, as /Date(ms)/.")
            schema.pattern = "^/Date\\(-?[0-9]+([+-][0-9]{4})?\\)/$"
        case .dateTimeOffset: schema = OpenAPISchema(type: .string, format: "date-time")
        case .time:
            if isV4 {
                schema = OpenAPISchema(type: .string, description: "A time of day.")
                schema.pattern = "^[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?$"
            } else {
                schema = OpenAPISchema(type: .string, format: "duration", description: "A time of day, as an XML duration (PT13H20M).")
            }
        case .guid: schema = OpenAPISchema(type: .string, format: "uuid")
        case .binary:
            schema = OpenAPISchema(type: .string)
            schema.contentEncoding = isV4 ? "base64url" : "base64"
        }
        return schema
    }

    private func integer(_ minimum: Int64, _ maximum: Int64, format: String? = nil) -> OpenAPISchema {
        var schema = OpenAPISchema(type: .integer, format: format)
        schema.minimum = minimum
        schema.maximum = maximum
        return schema
    }

    /// A value of the property's type, as the service writes it.
    private func example(_ property: EntityProperty) -> OpenAPIValue? {
        switch property.type {
        case .boolean: return .boolean(true)
        case .byte, .sbyte, .int16, .int32: return .integer(1)
        case .int64: return isV4 ? .integer(1) : .string("1")
        case .decimal: return isV4 ? .number(12.5) : .string("12.50")
        case .double, .single: return .number(1.5)
        case .string:
            let text = "text"
            return .string(String(text.prefix(max(1, property.maxLength ?? text.count))))
        case .dateTime: return .string(isV4 ? "2009-10-31T17:08:28.44Z" : "/Date(1257008908440)/")
        case .dateTimeOffset: return .string("2009-10-31T17:08:28.44+01:00")
        case .time: return .string(isV4 ? "13:20:00" : "PT13H20M")
        case .guid: return .string("5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a")
        case .binary: return .string("AQID")
        }
    }
}
