import Hummingbird
import StrataCore

/// The OData entry point for `/{service}/…`: parses the URL, finds the service, and dispatches:
/// service document and `$metadata`, reads (GET/HEAD), and — in their own files — writes and `$batch`.
struct ODataEndpoint: Sendable {
    let runtime: StrataRuntime

    func handle(_ request: Request, context: StrataRequestContext) async throws -> Response {
        let url = try ODataRequestURL(rawPath: request.uri.path, rawQuery: request.uri.query)
        guard let service = runtime.service(named: url.serviceName) else {
            context.setRoute("odata.unknown")
            throw ODataError.notFound("There is no service named '\(url.serviceName)'. Services: \(runtime.allServices.map(\.name).joined(separator: ", ")).")
        }
        let call = ODataCall(
            runtime: runtime, service: service, url: url, method: request.method, headers: request.headers,
            version: ContentNegotiation.version(
                maxVersionHeader: request.headers[ODataResponse.maxDataServiceVersion],
                versionHeader: request.headers[ODataResponse.dataServiceVersion]),
            serviceRoot: baseURL(for: request) + "/" + PercentEncoding.encodePathSegmentName(service.name) + "/",
            principal: context.principal)

        if url.path.segments.isEmpty {
            context.setRoute("odata.servicedocument")
            try requireRead(call)
            return try serviceDocument(call)
        }
        if url.path.segments.count == 1, url.path.segments[0].name == "$metadata", url.path.segments[0].key == nil {
            context.setRoute("odata.metadata")
            try requireRead(call)
            return ODataResponse.body(Array(MetadataDocument.xml(for: service.model).utf8),
                                      headers: [.contentType: ODataResponse.xmlContentType,
                                                ODataResponse.dataServiceVersion: ODataVersion.v2.headerValue], headRequest: call.isHead)
        }

        let path = try PathResolver(model: service.model).resolve(url.path)
        context.setRoute(Self.routeLabel(path))
        try requireRead(call)
        return try await ReadOperation(call: call, path: path).respond()
    }

    private func serviceDocument(_ call: ODataCall) throws -> Response {
        let model = call.service.model
        if ContentNegotiation.prefersXML(accept: call.headers[.accept]) {
            return ODataResponse.body(Array(ServiceDocument.xml(for: model, serviceRoot: call.serviceRoot).utf8),
                                      headers: [.contentType: ODataResponse.xmlContentType,
                                                ODataResponse.dataServiceVersion: ODataVersion.v1.headerValue], headRequest: call.isHead)
        }
        try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: call.url.value(of: "$format"))
        return ODataResponse.json(ServiceDocument.json(for: model), version: call.version, headRequest: call.isHead)
    }

    private func requireRead(_ call: ODataCall) throws(ODataError) {
        guard call.method == .get || call.method == .head else {
            throw .methodNotAllowed("\(call.method.rawValue) is not supported on this resource; it can be read with GET.")
        }
    }

    /// The scheme, host and port clients used: the configured public URL, else the request's Host header.
    private func baseURL(for request: Request) -> String {
        if let configured = runtime.configuration.publicBaseURL {
            return configured.hasSuffix("/") ? String(configured.dropLast()) : configured
        }
        let host = request.head.authority ?? "\(runtime.configuration.host):\(runtime.configuration.port)"
        let scheme = request.head.scheme ?? "http"
        return "\(scheme)://\(host)"
    }

    static func routeLabel(_ path: ResolvedPath) -> String {
        switch path.terminal {
        case .entities: return path.target.isCollection ? "odata.collection" : "odata.entity"
        case .property: return "odata.property"
        case .rawValue: return "odata.value"
        case .count: return "odata.count"
        case .links: return "odata.links"
        }
    }
}
