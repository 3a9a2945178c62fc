import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceLifecycle
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `/health/live` and `/health/ready` for load balancers: ready drops to 503 the moment a shutdown
/// begins, while live stays 200. (A database outage is in ErrorTests: ready 503 `degraded`, live 200.)
@Suite("Health")
struct HealthTests {
    @Test("Ready is 503 draining from the start of a shutdown; live stays 200; /health is ready")
    func draining() async throws {
        var configuration = try await TestDatabases.shared.configuration(.sqlite, demo: false)
        // Longer than the test: the grace period's end stops statements, which this test does not need.
        configuration.shutdownGrace = .seconds(600)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let logger = TestDatabases.logger
        let store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                      counter: .none, logger: logger)
        let runtime = StrataRuntime(configuration: configuration, store: store, metrics: StrataMetrics(), logger: logger)
        var app = Application(router: Routes.responder(runtime: runtime), services: [RuntimeShutdown(runtime: runtime)], logger: logger)
        app.beforeServerStarts { try await runtime.start() }
        try await app.test(.router) { client in
            for path in ["/health", "/health/ready"] {
                let ready = try await client.get(path)
                #expect(ready.status == .ok && ready.json["status"]?.stringValue == "ok", "\(path): \(ready.text)")
                #expect(ready.headers[.cacheControl] == "no-store")
            }
            #expect(try await client.get("/health/live").json["status"]?.stringValue == "ok")

            // The grace service hears of a shutdown first (see runServer) and marks the server draining.
            let group = ServiceGroup(configuration: .init(services: [ShutdownGrace(runtime: runtime)], logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                #expect(!runtime.isDraining)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(runtime.isDraining)
            for path in ["/health", "/health/ready"] {
                let ready = try await client.get(path)
                #expect(ready.status == .serviceUnavailable && ready.json["status"]?.stringValue == "draining", "\(path): \(ready.text)")
                #expect(ready.json["databases"]["system"]?.stringValue == "ok")
            }
            let live = try await client.get("/health/live")
            #expect(live.status == .ok && live.json["status"]?.stringValue == "ok")
        }
    }
}
