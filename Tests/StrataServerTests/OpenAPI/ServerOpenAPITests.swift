import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
import Testing

/// `/openapi.json`: the server's own API (issue 41, point 2). Its paths are compared with the routes
/// the router registers, both ways, so that a route added or removed without the document fails here.
@Suite("OpenAPI: the server's own document")
struct ServerOpenAPITests {
    /// The router of a server with accounts, as `strata serve` builds it.
    static func registeredRoutes() async throws -> [(method: String, path: String)] {
        let configuration = try await TestDatabases.shared.configuration(.sqlite)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let logger = TestDatabases.logger
        let store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                      counter: .none, logger: logger)
        let auth = try await AuthRuntime.make(settings: configuration.auth, system: SystemDatabase(database: store.system, schema: store.systemSchema),
                                              dataDirectory: configuration.dataDirectory, logger: logger)
        let runtime = StrataRuntime(configuration: configuration, store: store, metrics: StrataMetrics(), logger: logger, auth: auth)
        let (router, _) = Routes.router(runtime: runtime)
        let routes = router.routes.map { (method: $0.method.rawValue.lowercased(), path: "\($0.path)") }
        await runtime.close()
        return routes
    }

    @Test("The document's paths are the router's routes, and the router's routes are in the document")
    func noDrift() async throws {
        let document = ServerOpenAPI.document(baseURL: "http://localhost", withAccounts: true)
        // A service's own endpoints are reached through the OData route, not a route of their own.
        var documented: Set<String> = []
        for (path, item) in document.paths.entries where !path.hasPrefix("/{service}") {
            for (method, _) in item.operations { documented.insert("\(method) \(path)") }
        }
        let routes = try await Self.registeredRoutes()
        // The OData catch-all; blob routes are catch-alls that answer every method themselves (405 where none applies).
        let wildcards = routes.filter { $0.path.hasSuffix("**") }.map { String($0.path.dropLast(2)) }
        let exact = Set(routes.filter { !$0.path.hasSuffix("**") && $0.method != "head" }.map { "\($0.method) \($0.path)" })
        // A router that lost its routes would compare equal to nothing at all.
        #expect(exact.contains("post /auth/token") && exact.contains("get /auth/callback/{provider}") && exact.count > 40, "\(exact.sorted())")
        let blobRoutes = Set(routes.filter { $0.path.hasPrefix("/blobs") }.map(\.path))
        for route in exact.subtracting(blobRoutes.flatMap { path in ["get", "put", "delete", "post", "patch", "options", "merge"].map { "\($0) \(path)" } }) {
            #expect(documented.contains(route), "registered but not in /openapi.json: \(route)")
        }
        #expect(blobRoutes == ["/blobs", "/blobs/**"], "\(blobRoutes)")
        for entry in documented {
            let path = String(entry.split(separator: " ", maxSplits: 1)[1])
            let covered = exact.contains(entry) || (path.hasPrefix("/blobs") && blobRoutes.contains("/blobs/**"))
            #expect(covered, "in /openapi.json but not a route: \(entry) (wildcards: \(wildcards))")
        }
    }

    @Test("/openapi.json and .yaml answer, with sign-in's schemes; every parameterless GET it lists answers non-404", arguments: Backend.allCases)
    func served(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let response = try await client.get("/openapi.json")
            #expect(response.status == .ok, "\(response.text.prefix(200))")
            let document = response.json
            #expect(document["openapi"]?.stringValue == "3.1.0")
            #expect(document["components"]?["securitySchemes"]?["oauth2"] != nil)
            #expect(try await client.get("/openapi.yaml").text.contains("\nopenapi: \"3.1.0\"\n"))
            let admin = basic(TestAccounts.admin)
            for (path, item) in document["paths"]?.objectValue ?? JSONObject() where item["get"] != nil && !path.contains("{") {
                // The hosted sign-in page wants the app's redirect; asked without it, it says so (400).
                let answer = try await client.get(path, headers: admin)
                #expect(answer.status != .notFound && answer.status.code < 500, "GET \(path): \(answer.status) \(answer.text.prefix(200))")
            }
        }
    }
}
