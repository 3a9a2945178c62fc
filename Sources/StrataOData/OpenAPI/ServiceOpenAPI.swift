import StrataCore

/// Builds a service's OpenAPI 3.1 document from the model **as one caller is served it**: the sets
/// it may read, their columns (a column a model file restricts to other roles is not in the
/// caller's model at all), and only the writes its rights allow, under the model file's names.
///
/// Bodies are described in the JSON the service answers a client that names no version: V2's
/// verbose JSON (`{"d":…}`, `__metadata`, Int64 and Decimal as strings, `/Date(ms)/`) for a V2
/// service, V4's minimal metadata (`value`, `@odata.*`, numbers, ISO 8601) for a V4 one. A generated
/// client sends no OData version header, so that is the JSON it will read.
package struct ServiceOpenAPI: Sendable {
    package var model: ServiceModel
    /// The service's default version: V4, or V2's verbose JSON (V1 and V2 alike).
    package var version: ODataVersion
    package var title: String
    /// The service's root as callers reach it, absolute (`https://host/cardealer/`).
    package var serviceRoot: String
    package var readableSets: Set<String>
    package var capabilities: WriteCapabilities
    package var allowClientKeys = false
    package var requireIfMatch = false
    /// The server's hosted sign-in; nil where the server has no accounts (nobody signs in).
    package var signIn: OpenAPISignIn?

    package init(model: ServiceModel, version: ODataVersion, title: String, serviceRoot: String, readableSets: Set<String>,
                 capabilities: WriteCapabilities, signIn: OpenAPISignIn?) {
        self.model = model
        self.version = version.isV4 ? .v4 : .v2
        self.title = title
        self.serviceRoot = serviceRoot
        self.readableSets = readableSets
        self.capabilities = capabilities
        self.signIn = signIn
    }

    var isV4: Bool { version.isV4 }

    /// The sets this caller may read, in the model's order.
    var sets: [EntitySet] { model.entitySets.filter { readableSets.contains($0.name) } }

    package func document() -> OpenAPIDocument {
        var document = OpenAPIDocument(info: .init(
            title: title, version: isV4 ? "4.0" : "2.0",
            description: """
                The OData service \(model.serviceName) as the caller who asked for this document is served it: the sets it \
                may read, their columns, and the writes its rights allow. Bodies are OData \(isV4 ? "V4 JSON (minimal metadata)" : "V2 verbose JSON"), \
                what the service answers a client that sends no OData version header. $metadata describes the same model in CSDL.
                """))
        var root = serviceRoot
        if root.hasSuffix("/") { root.removeLast() }
        document.servers = [.init(url: root)]
        if let signIn {
            document.components.securitySchemes = signIn.schemes
            document.security = signIn.requirements
        }
        document.tags = sets.map { .init(name: $0.name, description: "The entity set \($0.name).") }
        addServicePaths(to: &document)
        addSharedSchemas(to: &document)
        for set in sets {
            addPaths(of: set, to: &document)
            addSchemas(of: set, to: &document)
        }
        return document
    }
}
