import StrataOData

/// One operation of the server's own API, as `/openapi.json` lists it: a compact description that
/// ``ServerOpenAPI`` turns into an ``OpenAPIOperation``.
struct ServerEndpoint: Sendable {
    /// A request or response body.
    enum Body: Sendable {
        case json(OpenAPISchema)
        /// `grant_type=…&…` or the same members as JSON.
        case form(OpenAPISchema)
        case text(String)
        case bytes
        case html
        case eventStream
    }

    var method: String
    var path: String
    var tag: String
    var summary: String
    var query: [OpenAPIParameter] = []
    var headers: [OpenAPIParameter] = []
    var body: Body?
    /// The answers besides errors: status, description, body.
    var answers: [(status: String, description: String, body: Body?)] = [("200", "Done.", nil)]

    init(_ method: String, _ path: String, tag: String, _ summary: String, query: [OpenAPIParameter] = [],
         headers: [OpenAPIParameter] = [], body: Body? = nil, answers: [(status: String, description: String, body: Body?)]) {
        self.method = method
        self.path = path
        self.tag = tag
        self.summary = summary
        self.query = query
        self.headers = headers
        self.body = body
        self.answers = answers
    }

    /// The parameters of the path's `{templates}`.
    var pathParameters: [OpenAPIParameter] {
        var names: [String] = []
        var rest = path[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names.map { name in
            OpenAPIParameter(name: name, in: .path, description: name == "name" ? "The blob's name; it may contain /." : nil, schema: .string())
        }
    }

    var operation: OpenAPIOperation {
        let id = method + path.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        var operation = OpenAPIOperation(operationId: id, summary: summary, tags: [tag], parameters: pathParameters + query + headers)
        if let body { operation.requestBody = OpenAPIRequestBody(content: Self.content(body)) }
        for answer in answers {
            operation.responses[answer.status] = OpenAPIResponse(description: answer.description, content: answer.body.map(Self.content))
        }
        operation.responses["default"] = OpenAPIResponse(description: "An error, as an OData error body.",
                                                         content: Self.content(.json(.reference("ODataError"))))
        return operation
    }

    static func content(_ body: Body) -> OpenAPIMap<OpenAPIMediaType> {
        switch body {
        case .json(let schema): return OpenAPIMap([("application/json", OpenAPIMediaType(schema: schema))])
        case .form(let schema):
            return OpenAPIMap([("application/x-www-form-urlencoded", OpenAPIMediaType(schema: schema)),
                               ("application/json", OpenAPIMediaType(schema: schema))])
        case .text(let type):
            // Tools parse a YAML body into its tree: a schema of "string" would not describe it.
            let schema = type.hasSuffix("yaml") ? OpenAPISchema(description: "A YAML document.") : .string()
            return OpenAPIMap([(type, OpenAPIMediaType(schema: schema))])
        case .bytes:
            var schema = OpenAPISchema.string("The bytes, of the blob's content type.")
            schema.format = "binary"
            return OpenAPIMap([("application/octet-stream", OpenAPIMediaType(schema: schema))])
        case .html: return OpenAPIMap([("text/html", OpenAPIMediaType(schema: .string()))])
        case .eventStream: return OpenAPIMap([("text/event-stream", OpenAPIMediaType(schema: .string("Server-sent events.")))])
        }
    }
}

extension OpenAPIParameter {
    /// An optional query parameter of type string.
    static func query(_ name: String, _ description: String, required: Bool = false) -> OpenAPIParameter {
        OpenAPIParameter(name: name, in: .query, description: description, required: required, schema: .string())
    }
}
