import Hummingbird
import HTTPTypes
import Logging
import StrataCore

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
        // Method and path only: headers (Authorization) and bodies never reach the log.
        router.add(middleware: LogRequestsMiddleware(.info, includeHeaders: .none))
        router.add(middleware: ErrorMiddleware())
        if let auth = runtime.auth {
            router.add(middleware: AuthenticationMiddleware(auth: auth))
            AuthRoutes.register(on: router, auth: auth)
            AdminRoutes.register(on: router, runtime: runtime, auth: auth)
        }

        router.get("/health") { _, context in
            context.setRoute("health")
            return try await HealthCheck(runtime: runtime).response()
        }
        router.get("/metrics") { _, context in
            context.setRoute("metrics")
            return ODataResponse.body(runtime.metrics.exposition(),
                                      headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], headRequest: false)
        }
        router.get("/") { _, context in
            context.setRoute("root")
            return ODataResponse.json(serviceList(runtime), version: nil)
        }

        BlobRoutes.register(on: router, blobs: runtime.blobs)

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

    /// The methods OData requests may use; others get the router's answer.
    static let odataMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, HTTPRequest.Method("MERGE")!]

    /// `GET /`: the services this server offers, with their service document URLs.
    private static func serviceList(_ runtime: StrataRuntime) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("services")
        writer.beginArray()
        for service in runtime.allServices {
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

/// `GET /health`: 200 when every database answers, 503 naming the ones that do not.
///
/// Each database is asked once (the services of one PostgreSQL database share it), all at once, on
/// connections kept for this (``Database/ping()``), so the answer never waits for a busy pool and
/// comes within the control connection's timeout when a database is down.
struct HealthCheck {
    let runtime: StrataRuntime

    func response() async throws -> Response {
        var named: [(String, any Database)] = [("system", runtime.store.system)]
        named += runtime.allServices.map { ($0.name, $0.database) }
        var distinct: [ObjectIdentifier: any Database] = [:]
        for (_, database) in named { distinct[ObjectIdentifier(database as AnyObject)] = database }
        let logger = runtime.logger
        let reachable = await withTaskGroup(of: (ObjectIdentifier, Bool).self) { group in
            for (id, database) in distinct {
                group.addTask {
                    do {
                        try await database.ping()
                        return (id, true)
                    } catch {
                        logger.warning("Health check failed", metadata: ["error": .string("\(error)")])
                        return (id, false)
                    }
                }
            }
            var results: [ObjectIdentifier: Bool] = [:]
            for await (id, ok) in group { results[id] = ok }
            return results
        }
        let results = named.map { ($0.0, reachable[ObjectIdentifier($0.1 as AnyObject)] ?? false) }
        let healthy = results.allSatisfy(\.1)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status")
        writer.string(healthy ? "ok" : "degraded")
        writer.key("databases")
        writer.beginObject()
        for (name, ok) in results {
            writer.key(name)
            writer.string(ok ? "ok" : "unreachable")
        }
        writer.endObject()
        writer.endObject()
        return ODataResponse.json(writer.bytes, status: healthy ? .ok : .serviceUnavailable, version: nil)
    }
}
