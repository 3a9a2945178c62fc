import Hummingbird
import StrataCore
import StrataOData
import StrataStorage

extension ODataEndpoint {
    /// The documents a service answers besides OData's own: `openapi.json` and `openapi.yaml`.
    static let openAPIDocuments = ["openapi.json", "openapi.yaml"]

    /// `/{service}/openapi.json` or `.yaml`: the service's OpenAPI document as this caller is served
    /// it — the caller's model (without the columns a model file keeps from it), the sets it may
    /// read and the writes it may make, which the same rights decide as for V4's `$metadata`.
    func openAPI(_ call: ODataCall, yaml: Bool, authorizer: Authorizer) async throws -> Response {
        let service = call.service
        var builder = ServiceOpenAPI(
            model: service.model, version: service.settings.odataVersion, title: service.settings.title ?? service.name,
            serviceRoot: call.serviceRoot, readableSets: try await authorizer.readableSets(of: service.model),
            capabilities: try await authorizer.writeCapabilities(of: service.model),
            signIn: runtime.auth == nil ? nil : OpenAPISignIn(baseURL: Self.serverBase(call), service: service.name))
        builder.allowClientKeys = service.settings.allowClientKeys
        builder.requireIfMatch = service.settings.requireIfMatch
        let document = builder.document()
        return ODataResponse.body(yaml ? try document.yaml() : try document.json(),
                                  headers: [.contentType: yaml ? "application/yaml" : ODataResponse.jsonContentType,
                                            .cacheControl: "no-store"],
                                  headRequest: call.isHead)
    }

    /// Whether a raw path asks for a service's OpenAPI document (`/{service}/openapi.json`), and the
    /// service's root path it is asked of.
    static func openAPIDocument(rawPath: String) -> (root: String, yaml: Bool)? {
        guard let slash = rawPath.lastIndex(of: "/"), rawPath.index(after: rawPath.startIndex) < slash else { return nil }
        let name = rawPath[rawPath.index(after: slash)...]
        guard openAPIDocuments.contains(String(name)), !rawPath[rawPath.index(after: rawPath.startIndex)..<slash].contains("/") else {
            return nil
        }
        return (String(rawPath[...slash]), name.hasSuffix(".yaml"))
    }

    /// The server's base URL: the service root without the service's path.
    static func serverBase(_ call: ODataCall) -> String {
        let root = call.serviceRoot
        guard root.hasSuffix(call.service.rootPath) else { return root }
        return String(root.dropLast(call.service.rootPath.count))
    }
}
