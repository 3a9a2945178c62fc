/// The operations of one path, by method.
package struct OpenAPIPathItem: Codable, Sendable, Equatable {
    package var summary: String?
    package var parameters: [OpenAPIParameter]?
    package var get: OpenAPIOperation?
    package var put: OpenAPIOperation?
    package var post: OpenAPIOperation?
    package var delete: OpenAPIOperation?
    package var patch: OpenAPIOperation?

    package init(summary: String? = nil, parameters: [OpenAPIParameter]? = nil) {
        self.summary = summary
        self.parameters = parameters
    }

    /// The methods that have an operation, in the document's order.
    package var operations: [(method: String, operation: OpenAPIOperation)] {
        [("get", get), ("put", put), ("post", post), ("delete", delete), ("patch", patch)].compactMap { method, operation in
            operation.map { (method, $0) }
        }
    }
}

/// One operation: its parameters, body and answers.
package struct OpenAPIOperation: Codable, Sendable, Equatable {
    package var operationId: String
    package var summary: String?
    package var description: String?
    package var tags: [String]?
    package var parameters: [OpenAPIParameter]?
    package var requestBody: OpenAPIRequestBody?
    package var responses = OpenAPIMap<OpenAPIResponse>()
    package var security: [SecurityRequirement]?

    package init(operationId: String, summary: String? = nil, tags: [String]? = nil, parameters: [OpenAPIParameter] = []) {
        self.operationId = operationId
        self.summary = summary
        self.tags = tags
        self.parameters = parameters.isEmpty ? nil : parameters
    }
}

/// A parameter in the path, the query or a header.
package struct OpenAPIParameter: Codable, Sendable, Equatable {
    package enum Location: String, Codable, Sendable {
        case path, query, header
    }

    package var name: String
    package var `in`: Location
    package var description: String?
    package var required: Bool?
    package var schema: OpenAPISchema

    package init(name: String, in location: Location, description: String? = nil, required: Bool = false, schema: OpenAPISchema) {
        self.name = name
        self.in = location
        self.description = description
        // A path parameter is always required; OpenAPI insists on saying so.
        self.required = location == .path || required ? true : nil
        self.schema = schema
    }
}

/// A request body, by media type.
package struct OpenAPIRequestBody: Codable, Sendable, Equatable {
    package var description: String?
    package var required: Bool?
    package var content: OpenAPIMap<OpenAPIMediaType>

    package init(description: String? = nil, required: Bool = true, content: OpenAPIMap<OpenAPIMediaType>) {
        self.description = description
        self.required = required ? true : nil
        self.content = content
    }
}

/// One answer: its description, headers, body by media type, and the operations its values lead to.
package struct OpenAPIResponse: Codable, Sendable, Equatable {
    package var description: String
    package var headers: OpenAPIMap<OpenAPIHeader>?
    package var content: OpenAPIMap<OpenAPIMediaType>?
    package var links: OpenAPIMap<OpenAPILink>?

    package init(description: String, headers: OpenAPIMap<OpenAPIHeader>? = nil, content: OpenAPIMap<OpenAPIMediaType>? = nil) {
        self.description = description
        self.headers = headers
        self.content = content
    }
}

/// A response header.
package struct OpenAPIHeader: Codable, Sendable, Equatable {
    package var description: String?
    package var schema: OpenAPISchema

    package init(description: String? = nil, schema: OpenAPISchema) {
        self.description = description
        self.schema = schema
    }
}

/// A body of one media type.
package struct OpenAPIMediaType: Codable, Sendable, Equatable {
    package var schema: OpenAPISchema

    package init(schema: OpenAPISchema) {
        self.schema = schema
    }
}

/// An operation an answer leads to, with its parameters taken from the answer (`$response.body#/d/personID`):
/// what a client, or a fuzzer's stateful phase, follows from a created entity to reading and changing it.
package struct OpenAPILink: Codable, Sendable, Equatable {
    package var operationId: String
    package var parameters: OpenAPIMap<String>

    package init(operationId: String, parameters: OpenAPIMap<String>) {
        self.operationId = operationId
        self.parameters = parameters
    }
}
