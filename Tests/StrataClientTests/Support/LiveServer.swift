import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StrataClient
import StrataDemo
import StrataServer
import StrataStorage
import StrataIdentity
import StrataOData
import StrataBlobs
import StrataDataTables
import StrataFeed
import Testing

/// A real `strata serve` on an ephemeral loopback port, spoken to over real sockets.
///
/// Read-only tests share one server per page size for the whole run (starting the demo takes a
/// moment); tests that change data start their own with ``withFreshServer(pageSize:_:)``.
struct LiveServer: Sendable {
    let port: Int
    let dataDirectory: String

    /// `http://localhost:PORT/` — the test framework binds to localhost.
    var rootURL: URL { URL(string: "http://localhost:\(port)/")! }

    /// A data service for one of the demo services, on its own connection.
    func service(_ name: String, maxVersion: ODataVersion = .v2,
                 configuration: ConnectionConfiguration = ConnectionConfiguration()) -> DataService {
        DataService(url: rootURL.appendingPathComponent(name + "/"), configuration: configuration, maxVersion: maxVersion)
    }

    /// The account every test server has: an editor of all services (demo writes and hockey reads need one).
    static let editorName = "client-tester"
    static let editorPassword = "client-tester-password"

    /// A data service whose requests carry the token of a real sign-in as ``editorName`` through
    /// the server's own token endpoint.
    func signedInService(_ name: String, maxVersion: ODataVersion = .v2) async throws -> DataService {
        let session = AuthSession(serverURL: rootURL)
        try await session.signIn(username: Self.editorName, password: Self.editorPassword)
        return service(name, maxVersion: maxVersion, configuration: ConnectionConfiguration(authenticator: session))
    }

    /// The shared server with `pageSize` rows per response, started on first use.
    static func shared(pageSize: Int = 1000) async throws -> LiveServer {
        try await SharedServers.instance.server(pageSize: pageSize)
    }
}

/// Runs `body` against a server of its own on a fresh copy of the demo data, then stops it.
func withFreshServer<T: Sendable>(pageSize: Int = 1000, _ body: @Sendable (LiveServer) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-client-\(UUID().uuidString.prefix(12))").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var configuration = StrataConfiguration(port: 0, dataDirectory: directory, pageSize: pageSize, logLevel: .critical)
    configuration.demo = true
    configuration.auth.passwordHashCost = 4
    // Every test of the target is one anonymous caller at one address, many at once.
    configuration.maxQueriesPerCaller = 64
    let logger = Logger(label: "client-tests", factory: { _ in SwiftLogNoOpLogHandler() })
    try await Administration.with(configuration, logger: logger) { admin in
        try await admin.addUser(LiveServer.editorName, password: LiveServer.editorPassword, roles: [RoleAssignment(role: "editor")])
    }
    let app = try await buildApplication(configuration)
    return try await app.test(.live) { client in
        try await body(LiveServer(port: client.port!, dataDirectory: directory))
    }
}

/// Servers that live until the test process exits.
actor SharedServers {
    static let instance = SharedServers()
    private var servers: [Int: Task<LiveServer, any Error>] = [:]

    func server(pageSize: Int) async throws -> LiveServer {
        if let existing = servers[pageSize] { return try await existing.value }
        let task = Task<LiveServer, any Error> {
            try await withCheckedThrowingContinuation { (started: CheckedContinuation<LiveServer, any Error>) in
                Task.detached {
                    do {
                        _ = try await withFreshServer(pageSize: pageSize) { server in
                            started.resume(returning: server)
                            // Keep serving until the process ends; never return or throw after resuming.
                            while true { try? await Task.sleep(for: .seconds(3600)) }
                        }
                    } catch {
                        started.resume(throwing: error)
                    }
                }
            }
        }
        servers[pageSize] = task
        return try await task.value
    }
}
