/// An OpenAPI 3.1 document: what `/{service}/openapi.json` answers (``ServiceOpenAPI`` builds it
/// from a caller's model) and what `/openapi.json` answers for the server's own endpoints.
///
/// The document is a tree of typed values encoded with `Codable`; the YAML form is written from
/// the same tree (``OpenAPIDocument/yaml()``), so the two cannot say different things.
package struct OpenAPIDocument: Codable, Sendable, Equatable {
    package var openapi = "3.1.0"
    package var info: Info
    package var servers: [Server]?
    package var security: [SecurityRequirement]?
    package var tags: [Tag]?
    package var paths = OpenAPIMap<OpenAPIPathItem>()
    package var components = Components()

    package init(info: Info) {
        self.info = info
    }

    /// The document's title and version, and what it describes.
    package struct Info: Codable, Sendable, Equatable {
        package var title: String
        package var version: String
        package var description: String?

        package init(title: String, version: String, description: String? = nil) {
            self.title = title
            self.version = version
            self.description = description
        }
    }

    /// Where the paths are: their common prefix, as an absolute URL.
    package struct Server: Codable, Sendable, Equatable {
        package var url: String
        package var description: String?

        package init(url: String, description: String? = nil) {
            self.url = url
            self.description = description
        }
    }

    /// A group of operations (one per entity set, one per area of the server's own API).
    package struct Tag: Codable, Sendable, Equatable {
        package var name: String
        package var description: String?

        package init(name: String, description: String? = nil) {
            self.name = name
            self.description = description
        }
    }

    /// The named schemas and security schemes the paths refer to.
    package struct Components: Codable, Sendable, Equatable {
        package var schemas = OpenAPIMap<OpenAPISchema>()
        package var securitySchemes = OpenAPIMap<OpenAPISecurityScheme>()

        package init() {}
    }
}

/// One way of being allowed in: the scheme names and their scopes. The empty requirement (`{}`)
/// says that a caller without credentials may try too.
package typealias SecurityRequirement = OpenAPIMap<[String]>
