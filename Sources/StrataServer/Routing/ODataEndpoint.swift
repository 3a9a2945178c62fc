import Hummingbird
import StrataCore

/// The OData entry point for `/{service}/…`: parses the URL, finds the service, and dispatches by
/// method and path (service document, `$metadata`, reads).
struct ODataEndpoint: Sendable {
    let runtime: StrataRuntime

    func handle(_ request: Request, context: StrataRequestContext) async throws -> Response {
        let url = try ODataRequestURL(rawPath: request.uri.path, rawQuery: request.uri.query)
        guard let service = runtime.service(named: url.serviceName) else {
            context.setRoute("odata.unknown")
            throw ODataError.notFound("There is no service named '\(url.serviceName)'. Services: \(runtime.allServices.map(\.name).joined(separator: ", ")).")
        }
        let version = ContentNegotiation.version(
            maxVersionHeader: request.headers[ODataResponse.maxDataServiceVersion],
            versionHeader: request.headers[ODataResponse.dataServiceVersion])
        let serviceRoot = baseURL(for: request) + "/" + PercentEncoding.encodePathSegmentName(service.name) + "/"
        let isHead = request.method == .head

        // Service document and $metadata.
        if url.path.segments.isEmpty {
            context.setRoute("odata.servicedocument")
            try requireRead(request)
            if ContentNegotiation.prefersXML(accept: request.headers[.accept]) {
                return ODataResponse.body(Array(ServiceDocument.xml(for: service.model, serviceRoot: serviceRoot).utf8),
                                          headers: [.contentType: ODataResponse.xmlContentType,
                                                    ODataResponse.dataServiceVersion: ODataVersion.v1.headerValue], headRequest: isHead)
            }
            try ContentNegotiation.requireJSON(accept: request.headers[.accept], format: url.value(of: "$format"))
            return ODataResponse.json(ServiceDocument.json(for: service.model), version: version, headRequest: isHead)
        }
        if url.path.segments.count == 1, url.path.segments[0].name == "$metadata", url.path.segments[0].key == nil {
            context.setRoute("odata.metadata")
            try requireRead(request)
            return ODataResponse.body(Array(MetadataDocument.xml(for: service.model).utf8),
                                      headers: [.contentType: ODataResponse.xmlContentType,
                                                ODataResponse.dataServiceVersion: ODataVersion.v2.headerValue], headRequest: isHead)
        }

        let path = try PathResolver(model: service.model).resolve(url.path)
        context.setRoute(Self.routeLabel(path))
        try requireRead(request)
        let options = try ReadOptions(url, version: version)
        if case .rawValue = path.terminal {} else if case .count = path.terminal {} else {
            try ContentNegotiation.requireJSON(accept: request.headers[.accept], format: options.format)
        }
        return try await ReadOperation(
            service: service, url: url, path: path, options: options, version: version,
            serviceRoot: serviceRoot, pageSize: runtime.configuration.pageSize, isHead: isHead
        ).respond()
    }

    private func requireRead(_ request: Request) throws(ODataError) {
        guard request.method == .get || request.method == .head else {
            throw .methodNotAllowed("\(request.method.rawValue) is not supported on this resource; it can be read with GET.")
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
