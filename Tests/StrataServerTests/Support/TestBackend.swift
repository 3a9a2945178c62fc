import Foundation
import Logging
import PostgresNIO
@testable import StrataDemo
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The databases every end-to-end test runs against, with the same expectations.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Fresh, isolated server configurations with the demo services already provisioned.
///
/// Provisioning the demo data once per backend and copying it per test keeps the suite fast:
/// SQLite copies a template data directory, PostgreSQL creates each test database from a template
/// database (`CREATE DATABASE … TEMPLATE`).
actor TestDatabases {
    static let shared = TestDatabases()

    private var sqliteTemplate: Task<URL, any Error>?
    private var postgresTemplate: Task<Void, any Error>?
    private var counter = 0
    private var creations: Task<Void, any Error>?

    init() {
        // Nearly every test asks for a database first: the watch starts with the first one.
        StallWatch.start()
    }

    static let logger: Logger = {
        var logger = Logger(label: "strata-test")
        logger.logLevel = ProcessInfo.processInfo.environment["STRATA_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    /// A configuration for a new server whose data nobody else uses. `demo` copies the demo services in.
    func configuration(_ backend: Backend, demo: Bool = true, pageSize: Int = 1000) async throws -> StrataConfiguration {
        counter += 1
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-test-\(UUID().uuidString.prefix(12))")
        var configuration = StrataConfiguration(dataDirectory: directory.path, pageSize: pageSize, logLevel: .critical)
        // At the start of a full run, CPU-bound suites hold both cooperative threads for ~20 s on two
        // cores; a server built then must still get its first PostgreSQL connection.
        configuration.databaseConnectionWait = .seconds(60)
        // Dozens of servers share one test cluster; each keeps its pool open.
        configuration.databaseConnections = 3
        // A test's client may connect at the start and send its first request at the end of a
        // minute-long test on a loaded machine; the tests of these limits set their own.
        configuration.connections.idleTimeout = .seconds(600)
        switch backend {
        case .sqlite:
            if demo {
                if sqliteTemplate == nil { sqliteTemplate = Task { try await Self.makeSQLiteTemplate() } }
                let template = try await sqliteTemplate!.value
                try FileManager.default.copyItem(at: template, to: directory)
            } else {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
        case .postgres:
            let endpoint = try await PostgresTestCluster.shared.start()
            if demo {
                if postgresTemplate == nil { postgresTemplate = Task { try await Self.makePostgresTemplate(endpoint) } }
                try await postgresTemplate!.value
            }
            let name = "strata_test_\(counter)_\(UUID().uuidString.prefix(6).lowercased())"
            // Copies of the template are made one at a time: PostgreSQL refuses to copy a database
            // that another session (including another copy in progress) is using.
            let previous = creations
            let creation = Task {
                _ = await previous?.result
                try await Self.createDatabase(name, template: demo ? "strata_template" : nil, endpoint)
            }
            creations = creation
            try await creation.value
            configuration.database = .postgres(PostgresLocation(host: endpoint.host, port: endpoint.port, username: endpoint.user, database: name))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // The demo's model files live in the data directory, which a copied database lacks.
            if demo {
                for (service, text) in try DemoServices.modelFiles() {
                    try text.write(to: directory.appendingPathComponent("\(service).model.yaml"), atomically: true, encoding: .utf8)
                }
            }
        }
        if !demo { try await Self.addTester(to: configuration) }
        return configuration
    }

    private static func createDatabase(_ name: String, template: String?, _ endpoint: PostgresTestCluster.Endpoint) async throws {
        var attempt = 0
        while true {
            do {
                try await withAdminClient(endpoint, database: "postgres") { client in
                    let from = template.map { " TEMPLATE \($0)" } ?? ""
                    try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)\(from)"))
                }
                return
            } catch {
                // The template's own set-up session may take a moment to go away after it is closed.
                let description = String(reflecting: error)
                attempt += 1
                if description.contains("55006"), attempt < 50 {
                    try await Task.sleep(for: .milliseconds(100))
                    continue
                }
                // PostgreSQL's errors describe themselves only through reflection.
                throw PostgresTestCluster.ClusterError("creating the test database \(name) failed: \(description)")
            }
        }
    }

    private static func makeSQLiteTemplate() async throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-template-\(UUID().uuidString.prefix(8))")
        let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: Self.logger)
        let system = SystemDatabase(database: store.system, schema: nil)
        try await system.migrate(logger: Self.logger)
        try await Self.provisionDemo(store, system, modelDirectory: directory)
        await store.close()
        return directory
    }

    private static func makePostgresTemplate(_ endpoint: PostgresTestCluster.Endpoint) async throws {
        try await Self.withAdminClient(endpoint, database: "postgres") { client in
            try await client.query("DROP DATABASE IF EXISTS strata_template")
            try await client.query("CREATE DATABASE strata_template")
        }
        try await Self.withAdminClient(endpoint, database: "strata_template") { client in
            let store = PostgresServiceStore(client: client, counter: .none, logger: Self.logger)
            let system = SystemDatabase(database: store.system, schema: store.systemSchema)
            try await system.migrate(logger: Self.logger)
            try await Self.provisionDemo(store, system)
        }
    }

    /// The demo services and access rules (anonymous reads of cardealer and speakeasy, a signed-in
    /// reader for hockey), as `strata serve --demo` creates them, and the administrator `withServer`
    /// signs in as. The demo `editor` account's random password is not announced.
    private static func provisionDemo(_ store: any ServiceStore, _ system: SystemDatabase, modelDirectory: URL? = nil) async throws {
        let accounts = ProvisioningTarget.AccountProvisioning(store: AuthStore(system: system), hasher: try PasswordHasher(cost: 4),
                                                              announce: { _ in }, now: { Date() })
        let target = ProvisioningTarget(store: store, system: system, accounts: accounts, modelDirectory: modelDirectory, logger: Self.logger)
        try await DemoServices().provision(target)
        try await DemoAccounts().provision(target)
        try await createTester(system)
    }

    private static func createTester(_ system: SystemDatabase) async throws {
        let hasher = try PasswordHasher(cost: 4)
        try await AuthStore(system: system).createAccount(
            TestAccounts.tester, passwordHash: try await hasher.hash(TestAccounts.testerPassword), roles: [RoleAssignment(role: "admin")], now: Date())
    }

    /// A configuration without the demo still has the administrator `withServer` signs in as.
    private static func addTester(to configuration: StrataConfiguration) async throws {
        switch configuration.database {
        case .postgres(let location):
            let endpoint = PostgresTestCluster.Endpoint(location)
            try await withAdminClient(endpoint, database: location.database ?? "postgres") { client in
                let store = PostgresServiceStore(client: client, counter: .none, logger: logger, connectionWait: .seconds(60))
                let system = SystemDatabase(database: store.system, schema: store.systemSchema)
                try await system.migrate(logger: logger)
                try await createTester(system)
            }
        default:
            let store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                          counter: .none, logger: logger)
            let system = SystemDatabase(database: store.system, schema: nil)
            do {
                try await system.migrate(logger: logger)
                try await createTester(system)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    /// Runs `body` with a PostgreSQL client whose pool runs for the duration of the call.
    static func withAdminClient<T: Sendable>(
        _ endpoint: PostgresTestCluster.Endpoint, database: String,
        _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let location = PostgresLocation(host: endpoint.host, port: endpoint.port, username: endpoint.user, database: database)
        let client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            do {
                let result = try await body(client)
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }
}

extension TestDatabases {
    /// Creates an extra service in a test's database before its server starts, from SQL scripts
    /// written for the backend, through the same store operation that creates any service.
    func provision(_ service: String, _ backend: Backend, into configuration: StrataConfiguration, scripts: [String]) async throws {
        switch configuration.database {
        case .postgres(let location):
            let endpoint = PostgresTestCluster.Endpoint(location)
            try await Self.withAdminClient(endpoint, database: location.database ?? "postgres") { client in
                // As long as the test servers wait (see `configuration`): a loaded start of a full run.
                let store = PostgresServiceStore(client: client, counter: .none, logger: Self.logger, connectionWait: .seconds(60))
                _ = try await store.provision(service, scripts: scripts.map { try SQLScript.fixture($0) })
                try await Self.allowAnonymousReads(service, store)
            }
        default:
            let store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                          counter: .none, logger: Self.logger)
            _ = try await store.provision(service, scripts: scripts.map { try SQLScript.fixture($0) })
            try await Self.allowAnonymousReads(service, store)
            await store.close()
        }
    }
}

extension TestDatabases {
    /// Extra test services are readable without credentials, like the demo's cardealer (a service
    /// nobody configured allows nothing anonymously).
    static func allowAnonymousReads(_ service: String, _ store: any ServiceStore) async throws {
        let system = SystemDatabase(database: store.system, schema: store.systemSchema)
        try await system.migrate(logger: logger)
        try await AuthStore(system: system).setAnonymousAccess(service, .read)
    }
}

/// Runs `body` holding a PostgreSQL slot, with the configuration of a new, empty test database, where
/// that database lives, and its name; the data directory is removed afterwards.
func withEmptyPostgresDatabase(_ body: (StrataConfiguration, PostgresLocation, String) async throws -> Void) async throws {
    try await PostgresSlots.run(.postgres) {
        let configuration = try await TestDatabases.shared.configuration(.postgres, demo: false)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        guard case .postgres(let location)? = configuration.database, let name = location.database else {
            Issue.record("no PostgreSQL test database")
            return
        }
        try await body(configuration, location, name)
    }
}

/// At most a few PostgreSQL-backed servers at once. Every test opens fresh connections to the
/// shared test cluster; on a 2-core machine, dozens of parallel connects (each a forked backend)
/// can take longer than the 5 s a request waits for a connection, failing tests that are correct.
actor PostgresSlots {
    static let shared = PostgresSlots(limit: 4)

    private let limit: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Runs `body` holding a slot when `backend` is PostgreSQL; SQLite tests run freely.
    static func run<T: Sendable>(_ backend: Backend, _ body: () async throws -> T) async throws -> T {
        guard backend == .postgres else { return try await body() }
        await shared.acquire()
        do {
            let result = try await body()
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if inUse < limit {
            inUse += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            // The slot passes straight to the next waiter.
            waiting.removeFirst().resume()
        }
    }
}

extension PostgresTestCluster.Endpoint {
    /// The test cluster as a server configured with `location` reaches it (TCP or socket directory).
    init(_ location: PostgresLocation) {
        self.init(host: location.host, port: location.port, user: location.username)
    }
}

extension SQLScript {
    /// A test fixture's script, written to a file and read back: the way every script Strata runs
    /// arrives (a file shipped with it or given by an operator), never a `String` from code.
    static func fixture(_ text: String) throws -> SQLScript {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fixture-\(UUID().uuidString).sql")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try SQLScript(contentsOf: file)
    }
}
