import StrataCore
import StrataOData

/// `/openapi.json` (and `.yaml`): the server's own API — accounts and sign-in under `/auth`, the
/// JWKS, blobs, administration, health and metrics, and each service's endpoints beside OData
/// (`$tables`, `$sql`, `$changes`, `$feed`, its own OpenAPI document). Written by hand from the
/// routes, one area a file; `ServerOpenAPITests` compares its paths with the routes the router
/// registers, so a route added without a line here fails a test.
enum ServerOpenAPI {
    /// The names of the documents at the server's root; they are no service's names.
    static let documentNames: Set<String> = ["openapi.json", "openapi.yaml"]

    static func document(baseURL: String, withAccounts: Bool) -> OpenAPIDocument {
        var document = OpenAPIDocument(info: .init(
            title: "Strata", version: "1",
            description: """
                The server's own endpoints. Each OData service describes itself at /{service}/openapi.json, \
                generated for the caller who asks; the service-level endpoints listed here (/{service}/$tables, …) work on \
                every service.
                """))
        document.servers = [.init(url: baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL)]
        var endpoints = operations + services
        if withAccounts {
            let signIn = OpenAPISignIn(baseURL: baseURL)
            document.components.securitySchemes = signIn.schemes
            document.security = signIn.requirements
            endpoints += auth + admin
        }
        endpoints += blobs
        document.components.schemas["ODataError"] = .object([
            ("error", .object([("code", .string()), ("message", OpenAPISchema(anyOf: [
                .string(), .object([("lang", .string()), ("value", .string())], required: ["value"])]))], required: ["code", "message"])),
        ], required: ["error"])
        document.tags = []
        for endpoint in endpoints {
            var item = document.paths[endpoint.path] ?? OpenAPIPathItem()
            let operation = endpoint.operation
            switch endpoint.method {
            case "get": item.get = operation
            case "put": item.put = operation
            case "post": item.post = operation
            case "delete": item.delete = operation
            default: item.patch = operation
            }
            document.paths[endpoint.path] = item
            if document.tags?.contains(where: { $0.name == endpoint.tag }) == false { document.tags?.append(.init(name: endpoint.tag)) }
        }
        return document
    }

    static let anyObject = OpenAPISchema(type: .object)
    static let list = OpenAPISchema.array(of: anyObject)

    /// A JSON object of string members, of which `required` must be there.
    static func fields(_ names: [String], required: [String] = []) -> OpenAPISchema {
        .object(names.map { ($0, OpenAPISchema()) }, required: required)
    }
}
