import Hummingbird
import HTTPTypes
import Logging
import StrataCore
import StrataBlobs
import StrataIdentity
import StrataOData
import StrataStorage

/// Builds the router: operational endpoints first, then every other path is an OData service.
enum Routes {
    /// The server's responder: requests for OData services go straight to the OData endpoint (behind
    /// the same middleware), everything else through the router.
    static func responder(runtime: StrataRuntime) -> StrataResponderBuilder {
        let (router, odata) = router(runtime: runtime)
        return StrataResponderBuilder(router: router, odata: odata, odataMethods: Set(odataMethods), runtime: runtime)
    }

    /// The router, and the OData endpoint behind the same middleware as its `/**` route.
    static func router(runtime: StrataRuntime) -> (Router<StrataRequestContext>, any HTTPResponder<StrataRequestContext>) {
        let router = Router(context: StrataRequestContext.self)
        router.add(middleware: MetricsMiddleware(metrics: runtime.metrics))
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: ErrorMiddleware())
        if let auth = runtime.auth {
            router.add(middleware: AuthenticationMiddleware(auth: auth))
            let signIn = HostedSignIn(auth: auth)
            AuthRoutes.register(on: router, auth: auth, signIn: signIn)
            SignInRoutes.register(on: router, runtime: runtime, signIn: signIn)
            AdminRoutes.register(on: router, runtime: runtime, auth: auth)
        }

        // `/health` is `/health/ready`, as it was before the two were told apart.
        for path in ["/health", "/health/ready"] {
            router.get(RouterPath(path)) { _, context in
                context.setRoute("health.ready")
                return try await HealthCheck(runtime: runtime).ready()
            }
        }
        router.get("/health/live") { _, context in
            context.setRoute("health.live")
            return HealthCheck.live()
        }
        router.get("/metrics") { _, context in
            context.setRoute("metrics")
            try requireMetricsAccess(runtime, context.principal)
            return ODataResponse.body(runtime.metrics.exposition(),
                                      headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], headRequest: false)
        }
        router.get("/") { _, context in
            context.setRoute("root")
            return ODataResponse.json(serviceList(try await runtime.services(usableBy: context.principal)), version: nil)
        }

        for name in ServerOpenAPI.documentNames.sorted() {
            router.get(RouterPath("/" + name)) { request, context in
                context.setRoute("openapi")
                let document = ServerOpenAPI.document(baseURL: runtime.baseURL(for: request), withAccounts: runtime.auth != nil)
                let yaml = name.hasSuffix(".yaml")
                return ODataResponse.body(yaml ? try document.yaml() : try document.json(),
                                          headers: [.contentType: yaml ? "application/yaml" : ODataResponse.jsonContentType], headRequest: false)
            }
        }

        BlobRoutes.register(on: router, blobs: runtime.blobs)
        ConsoleRoutes.register(on: router)

        let odata = ODataEndpoint(runtime: runtime)
        for method in odataMethods {
            router.on("/**", method: method) { request, context in
                try await odata.handle(request, context: context)
            }
        }
        let direct = router.middlewares.constructResponder(
            finalResponder: CallbackResponder { request, context in try await odata.handle(request, context: context) })
        return (router, direct)
    }

    /// 401 or 403 unless the caller may read `/metrics` (``StrataConfiguration/metricsAccess``); a
    /// server without accounts has nobody to ask for.
    private static func requireMetricsAccess(_ runtime: StrataRuntime, _ principal: Principal?) throws(ODataError) {
        guard runtime.configuration.metricsAccess == .admin, runtime.auth != nil else { return }
        guard let principal else {
            throw AuthErrors.unauthenticated("Sign in as an account holding the admin or metrics role to read /metrics (or start the server with --metrics-access anonymous).")
        }
        guard principal.roles.contains(BuiltInRole.admin.rawValue) || principal.roles.contains(StrataConfiguration.MetricsAccess.role) else {
            throw AuthErrors.forbidden("\(principal.subject) holds neither the admin nor the metrics role for every service, which /metrics needs.")
        }
    }

    /// The methods OData requests may use; others get the router's answer.
    static let odataMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, HTTPRequest.Method("MERGE")!]

    /// `GET /`: the services this server offers the caller, with their service document URLs.
    private static func serviceList(_ services: [ODataService]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("services")
        writer.beginArray()
        for service in services {
            writer.beginObject()
            writer.key("name")
            writer.string(service.name)
            writer.key("title")
            if let title = service.settings.title { writer.string(title) } else { writer.null() }
            writer.key("url")
            writer.string("/\(service.name)/")
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
