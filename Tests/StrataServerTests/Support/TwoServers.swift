import Foundation
import HummingbirdTesting
import PostgresNIO
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Two servers on one PostgreSQL database, with data directories of their own, as two machines
/// behind a load balancer would be: the demo data, its access rules and the test accounts.
struct TwoServers: Sendable {
    let a: any TestClientProtocol
    let b: any TestClientProtocol
    let serverA: StrataRuntime
    let serverB: StrataRuntime
    let changesB: SystemChangeDispatcher
    /// Server A's configuration (B's differs in its data directory and `configureB`).
    let configuration: StrataConfiguration

    /// How long B's authentication caches may be held now, and whether B is listening.
    var freshnessB: CacheFreshness { serverB.auth!.store.freshness }

    /// The PostgreSQL database both serve.
    var location: PostgresLocation {
        guard case .postgres(let location)? = configuration.database else { preconditionFailure("two servers share a PostgreSQL database") }
        return location
    }

    /// Ends every listening connection of this database's servers (`pg_terminate_backend`), as a
    /// network cut or a restarted PostgreSQL would; answers how many were ended.
    func terminateListeners() async throws -> Int {
        let location = self.location
        return try await TestDatabases.withAdminClient(PostgresTestCluster.Endpoint(location), database: "postgres") { client in
            let name = location.database ?? ""
            let rows = try await client.query("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE application_name = \(PostgresChangeListener.applicationName) AND datname = \(name)
                """)
            var ended = 0
            for try await row in rows {
                if try row.decode(Bool.self) { ended += 1 }
            }
            return ended
        }
    }
}

/// Polls `check` until it holds or `deadline` passes; answers whether it held.
func eventually(within deadline: Duration, _ check: @Sendable () async throws -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + deadline
    while true {
        if try await check() { return true }
        if ContinuousClock.now >= end { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Runs `test` with two servers on one new PostgreSQL database (``TwoServers``), both started and
/// listening for each other's changes, with the demo and `services`. `configure` applies to both
/// (a file it writes into the data directory is in A's only), then `configureB` to B.
///
/// Both are given the same key secret, so that they share the signing keys in the system database
/// and tokens signed by one verify on the other; B's data directory starts empty, as another
/// machine's would.
func withTwoServers<T: Sendable>(
    _ setup: TestingSetup = .router,
    services: [TestService] = [],
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    configureB: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    _ test: @Sendable (TwoServers) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(.postgres) {
        var configuration = try await TestDatabases.shared.configuration(.postgres)
        for service in services {
            try await TestDatabases.shared.provision(service.name, .postgres, into: configuration, scripts: service.scripts(.postgres))
        }
        configuration.auth.passwordHashCost = 4
        configuration.auth.keySecret = try KeySecret(SigningKeyTests.secret, source: "test")
        configure(&configuration)
        let configurationA = configuration
        var configurationB = configuration
        configurationB.dataDirectory = configuration.dataDirectory + "-b"
        configureB(&configurationB)
        let preparedB = configurationB
        defer {
            try? FileManager.default.removeItem(atPath: configurationA.dataDirectory)
            try? FileManager.default.removeItem(atPath: preparedB.dataDirectory)
        }
        try FileManager.default.createDirectory(atPath: preparedB.dataDirectory, withIntermediateDirectories: true)
        try await Administration.with(configurationA, logger: TestDatabases.logger) { admin in
            try await TestAccounts.create(admin)
        }
        let builtA = try await makeApplication(configurationA, logger: TestDatabases.logger)
        let builtB = try await makeApplication(preparedB, logger: TestDatabases.logger)
        return try await builtA.application.test(setup) { a in
            try await builtB.application.test(setup) { b in
                let servers = TwoServers(a: a, b: b, serverA: builtA.runtime, serverB: builtB.runtime, changesB: builtB.changes,
                                         configuration: configurationA)
                let listening = try await eventually(within: .seconds(20)) {
                    servers.freshnessB.isListening && builtA.runtime.auth!.store.freshness.isListening
                }
                try #require(listening, "the servers never listened for changes")
                return try await test(servers)
            }
        }
    }
}
