/// A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as far as the documents Strata writes use
/// it: types, formats, properties, references, and the few keywords that say what a value holds.
package struct OpenAPISchema: Codable, Sendable, Equatable {
    package var ref: String?
    package var type: SchemaType?
    package var format: String?
    package var description: String?
    package var properties: OpenAPIMap<OpenAPISchema>?
    package var required: [String]?
    /// Boxed: a struct cannot hold itself directly.
    package var items: Box?
    package var additionalProperties: Bool?
    package var anyOf: [OpenAPISchema]?
    package var `enum`: [OpenAPIValue]?
    package var pattern: String?
    package var maxLength: Int?
    package var minimum: Int64?
    package var maximum: Int64?
    package var contentEncoding: String?
    package var readOnly: Bool?
    package var examples: [OpenAPIValue]?

    package init(ref: String? = nil, type: SchemaType? = nil, format: String? = nil, description: String? = nil) {
        self.ref = ref
        self.type = type
        self.format = format
        self.description = description
    }

    enum CodingKeys: String, CodingKey {
        case ref = "$ref"
        case type, format, description, properties, required, items, additionalProperties, anyOf, `enum`, pattern, maxLength
        case minimum, maximum, contentEncoding, readOnly, examples
    }

    /// A reference to a schema of the document's components.
    package static func reference(_ name: String) -> OpenAPISchema {
        OpenAPISchema(ref: "#/components/schemas/" + name)
    }

    package static func string(_ description: String? = nil) -> OpenAPISchema {
        OpenAPISchema(type: .string, description: description)
    }

    /// An object of the given members, of which `required` must be there.
    package static func object(_ properties: [(String, OpenAPISchema)], required: [String] = [],
                               additionalProperties: Bool? = nil, description: String? = nil) -> OpenAPISchema {
        var schema = OpenAPISchema(type: .object, description: description)
        schema.properties = OpenAPIMap(properties)
        schema.required = required.isEmpty ? nil : required
        schema.additionalProperties = additionalProperties
        return schema
    }

    package static func array(of element: OpenAPISchema) -> OpenAPISchema {
        var schema = OpenAPISchema(type: .array)
        schema.items = Box(element)
        return schema
    }

    /// The same schema, also allowing `null`.
    package var nullable: OpenAPISchema {
        var schema = self
        if let type = schema.type {
            schema.type = SchemaType(type.names + ["null"])
        } else {
            schema = OpenAPISchema()
            schema.anyOf = [self, OpenAPISchema(type: .null)]
        }
        return schema
    }

    /// Holds a schema inside another one.
    package final class Box: Codable, Sendable, Equatable {
        package let schema: OpenAPISchema
        package init(_ schema: OpenAPISchema) { self.schema = schema }
        package init(from decoder: any Decoder) throws { schema = try OpenAPISchema(from: decoder) }
        package func encode(to encoder: any Encoder) throws { try schema.encode(to: encoder) }
        package static func == (lhs: Box, rhs: Box) -> Bool { lhs.schema == rhs.schema }
    }
}

/// A schema's `type`: one name, or several (`["string", "null"]`), as JSON Schema writes them.
package struct SchemaType: Codable, Sendable, Equatable {
    package var names: [String]

    package init(_ names: [String]) { self.names = names }

    package static let string = SchemaType(["string"])
    package static let integer = SchemaType(["integer"])
    package static let number = SchemaType(["number"])
    package static let boolean = SchemaType(["boolean"])
    package static let object = SchemaType(["object"])
    package static let array = SchemaType(["array"])
    package static let null = SchemaType(["null"])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self) { names = [name] } else { names = try container.decode([String].self) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if names.count == 1 { try container.encode(names[0]) } else { try container.encode(names) }
    }
}

/// A literal in a document: an enumeration's member, an example.
package enum OpenAPIValue: Codable, Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case boolean(Bool)

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) { self = .boolean(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else { self = .string(try container.decode(String.self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        }
    }
}
