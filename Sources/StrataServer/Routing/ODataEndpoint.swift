import HTTPTypes
import Hummingbird
import StrataCore
import StrataDataTables
import StrataFeed
import StrataIdentity
import StrataOData
import StrataStorage

/// The OData entry point for `/{service}/…`: parses the URL, finds the service, and dispatches:
/// service document and `$metadata`, reads (GET/HEAD), writes, `$batch` (``BatchEndpoint``) and
/// the data table endpoints (`$tables`, `$sql`, `$changes`).
/// Write methods arrive here too (see ``Routes``); X-HTTP-Method tunnelling is resolved first.
///
/// The route runs the stages of a request in order, each handing the next a value: parse
/// (`Request`), authorize (`Authorization`), plan and execute (`Execution`, through the pure
/// `Planning`), serialize (`Serialization`). None of them calls back up here.
struct ODataEndpoint: Sendable {
    let runtime: StrataRuntime

    func handle(_ request: Request, context: StrataRequestContext) async throws -> Response {
        // The caller's scope in the service comes first: a service it may not use answers 401 or
        // 403 before its path, query or body is looked at (each could name its tables otherwise).
        let serviceName = try ODataRequestURL.serviceName(rawPath: request.uri.path)
        guard let service = try await runtime.service(named: serviceName, for: context.principal) else {
            context.setRoute("odata.unknown")
            let usable = try await runtime.services(usableBy: context.principal).map(\.name)
            throw ODataError.notFound("There is no service named '\(serviceName)'."
                                      + (usable.isEmpty ? "" : " Services: \(usable.joined(separator: ", "))."))
        }
        // `openapi.json` is not an OData name (it has a dot); the document is asked of the service's root.
        let document = Self.openAPIDocument(rawPath: request.uri.path)
        let url = try ODataRequestURL(rawPath: document?.root ?? request.uri.path, rawQuery: request.uri.query)
        let method = try Self.effectiveMethod(request.method, headers: request.headers)
        let version = ContentNegotiation.version(Self.versionRequest(request.headers, url: url),
                                                 serviceDefault: service.settings.odataVersion, serviceMaximum: service.maxProtocolVersion)
        let call = ODataCall(
            settings: runtime.requestSettings, logger: runtime.logger, service: service, url: url, method: method, headers: request.headers,
            version: version, serviceRoot: runtime.baseURL(for: request) + service.rootPath, principal: context.principal,
            jsonFormat: version.isV4 ? try JSONFormat.parse(accept: request.headers[.accept], format: url.value(of: "$format")) : JSONFormat())
        // Read by the stage that needs it: a write's after the write is authorized.
        let body: PendingBody = method == .get || method == .head ? .bytes([]) : .request(request, limit: runtime.configuration.maxBodySize)
        // The request's statements run under the server's limits, or the service's own timeout, and
        // its scans count against the caller's share (the caller's key is worked out only by scans).
        var limits = runtime.statementLimits(connection: context.connection)
        let (principal, headers, peer, proxies) = (context.principal, request.headers, context.remoteAddress, runtime.configuration.trustedProxies)
        limits.caller = {
            principal.map { "subject " + ($0.issuer.map { $0 + " " } ?? "") + $0.subject }
                ?? "address " + (StrataRequestContext.clientAddress(peer: peer, headers, trusting: proxies) ?? "unknown")
        }
        limits.timeout = service.settings.statementTimeout(server: limits.timeout)
        return try await StatementLimits.$current.withValue(limits) {
            do {
                if let document {
                    context.setRoute("odata.openapi")
                    try requireRead(call)
                    return try await openAPI(call, yaml: document.yaml, authorizer: authorizer(for: call))
                }
                return try await respond(to: call, body: body, context: context)
            } catch where call.version.isV4 {
                // A V4 client reads V4's error body; V1 and V2 errors are written by ErrorMiddleware.
                return ODataResponse.error(ODataError.from(error, logger: context.logger), headRequest: call.isHead, version: .v4)
            }
        }
    }

    /// The headers and options of `headers` and `url` that speak of the protocol version.
    static func versionRequest(_ headers: HTTPFields, url: ODataRequestURL) -> ContentNegotiation.VersionRequest {
        ContentNegotiation.VersionRequest(
            maxDataServiceVersion: headers[ODataResponse.maxDataServiceVersion], dataServiceVersion: headers[ODataResponse.dataServiceVersion],
            odataMaxVersion: headers[ODataResponse.odataMaxVersion], odataVersion: headers[ODataResponse.odataVersion],
            accept: headers[.accept], format: url.value(of: "$format"))
    }

    /// Dispatches one call: from the router, or for an operation inside a `$batch` (context nil).
    func respond(to call: ODataCall, body: PendingBody, context: StrataRequestContext?) async throws -> Response {
        let url = call.url
        let authorizer = authorizer(for: call)
        if url.path.segments.isEmpty {
            context?.setRoute("odata.servicedocument")
            try requireRead(call)
            return try serviceDocument(call)
        }
        if url.path.segments.count == 1, url.path.segments[0].name == "$metadata", url.path.segments[0].key == nil {
            context?.setRoute("odata.metadata")
            try requireRead(call)
            let (model, allowClientKeys) = (call.service.model, call.service.settings.allowClientKeys)
            if call.version.isV4 {
                let capabilities = try await authorizer.writeCapabilities(of: model)
                return ODataResponse.body(Array(MetadataDocumentV4.xml(for: model, allowClientKeys: allowClientKeys,
                                                                       capabilities: capabilities).utf8),
                                          headers: [.contentType: ODataResponse.xmlContentType,
                                                    ODataResponse.odataVersion: ODataVersion.v4.headerValue], headRequest: call.isHead)
            }
            return ODataResponse.body(Array(MetadataDocument.xml(for: model, allowClientKeys: allowClientKeys).utf8),
                                      headers: [.contentType: ODataResponse.xmlContentType,
                                                ODataResponse.dataServiceVersion: ODataVersion.v2.headerValue], headRequest: call.isHead)
        }
        if url.path.segments.count == 1, url.path.segments[0].name == "$batch", url.path.segments[0].key == nil {
            context?.setRoute("odata.batch")
            guard call.method == .post, context != nil else {
                throw ODataError.methodNotAllowed("$batch takes a POST with a multipart/mixed body (or, in V4, a JSON batch), and cannot be nested.")
            }
            return try await BatchEndpoint(endpoint: self, call: call, body: body.collect()).respond()
        }

        if let first = url.path.segments.first, first.name == "$feed" || (first.name == "$tables" && TablesDelta.applies(to: url)),
           let hub = runtime.feedHub(for: call.service.name) {
            if first.name == "$feed" {
                guard let context else { throw ODataError.badRequest("$feed is a stream of its own; it cannot be part of a $batch.") }
                context.setRoute("feed.stream")
                return try await FeedEndpoint(call: call, authorizer: authorizer, hub: hub, settings: runtime.feed,
                                              hangUp: ConnectionSignals.shared.signal(for: context.connection)).respond()
            }
            context?.setRoute("feed.tables")
            return try await TablesDelta(call: call, authorizer: authorizer, settings: runtime.feed, hub: hub).respond()
        }
        if let response = try await DataTableEndpoints.respond(to: call, authorizer: authorizer, body: body, context: context) {
            return response
        }

        let path = try PathResolver(model: call.service.model).resolve(url.path)
        context?.setRoute(Self.routeLabel(path))
        if call.method == .get || call.method == .head {
            return try await read(call, path, authorizer)
        }
        // The addressed table's right is decided from the URL alone, before the body is read; the
        // other tables a deep insert touches once the body names them.
        let access = try await authorizer.access(toWrite: path, method: call.method)
        let request = try WriteRequest.parse(call, path, body: try await body.collect(),
                                             references: ServiceRelativeURL(serviceName: call.service.name, serviceRoot: call.serviceRoot))
        let result = try await WriteOperation(call: call, request: request, access: try await access.including(request)).run()
        return WriteResponse(call: call).response(result)
    }

    /// A GET through the stages: parse the options, decide the caller's access to every table the
    /// read touches, plan and run it, write the answer.
    private func read(_ call: ODataCall, _ path: ResolvedPath, _ authorizer: Authorizer) async throws -> Response {
        let request = try ReadRequest.parse(call, path)
        switch path.terminal {
        case .rawValue, .count: break
        default: try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: request.query.format)
        }
        let delta = try DeltaRequest.parse(call.url, headers: call.headers)
        let access = try await authorizer.access(toRead: request)
        if let delta, let response = try await DeltaOperation(call: call, feed: runtime.feed, request: delta, read: request,
                                                              access: access, hub: runtime.feedHub(for: call.service.name)).respond() {
            return response
        }
        let result = try await ReadOperation(call: call, request: request, access: access).run()
        return ReadResponse(call: call, path: path).response(result)
    }

    /// The Authorization step's view of a call: the server's access policy, the call's service and caller.
    func authorizer(for call: ODataCall) -> Authorizer {
        Authorizer(policy: runtime.accessPolicy, call: call)
    }

    static let xHTTPMethod = HTTPField.Name("X-HTTP-Method")!

    /// The method a request stands for: `POST` with `X-HTTP-Method: MERGE|PUT|PATCH|DELETE` tunnels
    /// that method through proxies that only pass GET and POST.
    static func effectiveMethod(_ method: HTTPRequest.Method, headers: HTTPFields) throws(ODataError) -> HTTPRequest.Method {
        guard let tunnelled = headers[xHTTPMethod] else { return method }
        guard method == .post else {
            throw .badRequest("X-HTTP-Method is honoured only on POST requests.")
        }
        switch tunnelled.uppercased() {
        case "MERGE": return .merge
        case "PUT": return .put
        case "PATCH": return .patch
        case "DELETE": return .delete
        default: throw .badRequest("X-HTTP-Method must be MERGE, PUT, PATCH or DELETE, not '\(tunnelled.prefix(20))'.")
        }
    }

    private func serviceDocument(_ call: ODataCall) throws -> Response {
        let model = call.service.model
        if call.version.isV4 {
            try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: call.url.value(of: "$format"))
            return ODataResponse.json(ServiceDocument.jsonV4(for: model, serviceRoot: call.serviceRoot, format: call.jsonFormat),
                                      version: .v4, headRequest: call.isHead, contentType: call.jsonFormat.contentType)
        }
        if ContentNegotiation.prefersXML(accept: call.headers[.accept]) {
            return ODataResponse.body(Array(ServiceDocument.xml(for: model, serviceRoot: call.serviceRoot).utf8),
                                      headers: [.contentType: ODataResponse.xmlContentType,
                                                ODataResponse.dataServiceVersion: ODataVersion.v1.headerValue], headRequest: call.isHead)
        }
        try ContentNegotiation.requireJSON(accept: call.headers[.accept], format: call.url.value(of: "$format"))
        return ODataResponse.json(ServiceDocument.json(for: model), version: call.version, headRequest: call.isHead)
    }

    func requireRead(_ call: ODataCall) throws(ODataError) {
        guard call.method == .get || call.method == .head else {
            throw .methodNotAllowed("\(call.method.rawValue) is not supported on this resource; it can be read with GET.")
        }
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
