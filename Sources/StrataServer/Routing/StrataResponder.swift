import HTTPTypes
import Hummingbird
import StrataIdentity
import StrataOData
import StrataStorage

/// Sends each request to the OData endpoint or to the router by the first segment of its path.
///
/// Every route the router holds besides the OData catch-all (`/**`) sits below `/` or a reserved
/// name (``ServiceName/reserved``: `health`, `metrics`, `auth`, `admin`, `blobs`, `console`, `.well-known`), so any other path
/// is one the router would hand to the OData endpoint anyway. Going there directly spares each
/// service request the route lookup, which cost as much as parsing its OData URL.
struct StrataResponder: HTTPResponder {
    typealias Context = StrataRequestContext
    let router: RouterResponder<StrataRequestContext>
    /// The OData endpoint behind the router's middleware.
    let odata: any HTTPResponder<StrataRequestContext>
    /// The methods the router's OData route takes.
    let odataMethods: Set<HTTPRequest.Method>
    let runtime: StrataRuntime

    /// Every request runs under the server's ``StatementLimits``, its client's hang-up signal
    /// included: the OData endpoint sets them with what it knows of the service and the caller
    /// (one task-local binding per request, on the path every service request takes), the others here.
    func respond(to request: Request, context: Context) async throws -> Response {
        guard runtime.readsStandbys else { return try await dispatch(request, context: context) }
        return try await ReadPositionHeader.run(request) { try await dispatch(request, context: context) }
    }

    private func dispatch(_ request: Request, context: Context) async throws -> Response {
        if odataMethods.contains(request.method), Self.isServicePath(request.rawPath) {
            return try await odata.respond(to: request, context: context)
        }
        return try await StatementLimits.$current.withValue(runtime.statementLimits(connection: context.connection)) {
            try await router.respond(to: request, context: context)
        }
    }

    /// Whether a raw path's first segment names a service rather than the root or a reserved name.
    static func isServicePath(_ path: some StringProtocol) -> Bool {
        let first = ODataRequestURL.firstSegment(of: path)
        guard !first.isEmpty else { return false }
        let name = String(path[first])
        return !ServiceName.reserved.contains(name) && !ServerOpenAPI.documentNames.contains(name)
    }
}

/// Builds ``StrataResponder`` for `Application(router:)`.
struct StrataResponderBuilder: HTTPResponderBuilder {
    let router: Router<StrataRequestContext>
    let odata: any HTTPResponder<StrataRequestContext>
    let odataMethods: Set<HTTPRequest.Method>
    let runtime: StrataRuntime

    func buildResponder() -> StrataResponder {
        StrataResponder(router: router.buildResponder(), odata: odata, odataMethods: odataMethods, runtime: runtime)
    }
}
