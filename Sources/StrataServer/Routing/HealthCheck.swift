import Hummingbird
import Logging
import StrataCore
import StrataSQL
import StrataOData
import StrataStorage

/// `GET /health/live` and `GET /health/ready` (also `/health`), for load balancers and orchestrators.
///
/// *Live* says the process answers HTTP; it touches no database, so a slow database never gets a
/// server restarted. *Ready* says the server should get requests: 200 when every database answers,
/// 503 naming the ones that do not, and 503 `draining` from the moment a shutdown begins (SIGTERM),
/// so that a balancer stops sending new requests while those in flight finish. A server is never
/// seen starting: it accepts connections only after its databases are prepared and its services
/// loaded.
///
/// Each database is asked once (the services of one PostgreSQL database share it), all at once, on
/// connections kept for this (``Database/ping()``), so the answer never waits for a busy pool and
/// comes within the control connection's timeout when a database is down.
struct HealthCheck {
    let runtime: StrataRuntime

    static func live() -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status")
        writer.string("ok")
        writer.endObject()
        return ODataResponse.json(writer.bytes, version: nil, extraHeaders: [.cacheControl: "no-store"])
    }

    func ready() async throws -> Response {
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
        let draining = runtime.isDraining
        let healthy = results.allSatisfy(\.1) && !draining
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status")
        writer.string(draining ? "draining" : healthy ? "ok" : "degraded")
        writer.key("databases")
        writer.beginObject()
        for (name, ok) in results {
            writer.key(name)
            writer.string(ok ? "ok" : "unreachable")
        }
        writer.endObject()
        writer.endObject()
        return ODataResponse.json(writer.bytes, status: healthy ? .ok : .serviceUnavailable, version: nil,
                                  extraHeaders: [.cacheControl: "no-store"])
    }
}
