/// A way of authenticating: an HTTP scheme (Bearer, Basic) or OAuth 2's flows.
package struct OpenAPISecurityScheme: Codable, Sendable, Equatable {
    package var type: String
    package var description: String?
    package var scheme: String?
    package var bearerFormat: String?
    package var flows: Flows?

    /// `Authorization: Bearer …` with a token of the given format.
    package static func bearer(format: String, description: String) -> OpenAPISecurityScheme {
        OpenAPISecurityScheme(type: "http", description: description, scheme: "bearer", bearerFormat: format)
    }

    /// `Authorization: Basic …`.
    package static func basic(description: String) -> OpenAPISecurityScheme {
        OpenAPISecurityScheme(type: "http", description: description, scheme: "basic")
    }

    /// OAuth 2's authorization code flow (OpenAPI has no field for PKCE; the description says it is required).
    package static func authorizationCode(authorizationURL: String, tokenURL: String, description: String) -> OpenAPISecurityScheme {
        OpenAPISecurityScheme(type: "oauth2", description: description,
                              flows: Flows(authorizationCode: Flow(authorizationUrl: authorizationURL, tokenUrl: tokenURL,
                                                                   refreshUrl: tokenURL, scopes: OpenAPIMap())))
    }

    package struct Flows: Codable, Sendable, Equatable {
        package var authorizationCode: Flow?
    }

    package struct Flow: Codable, Sendable, Equatable {
        package var authorizationUrl: String
        package var tokenUrl: String
        package var refreshUrl: String?
        package var scopes: OpenAPIMap<String>
    }
}
