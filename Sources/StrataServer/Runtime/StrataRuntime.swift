import Foundation
import Logging
import StrataCore
import StrataSQL
import Synchronization

/// The server's state: its store of services, the models read from their catalogs, its metrics.
///
/// Built before the server starts; ``start()`` runs while the service group runs (PostgreSQL's
/// connection pool is one of its services), then the HTTP server opens.
final class StrataRuntime: Sendable {
    let configuration: StrataConfiguration
    let store: any ServiceStore
    let system: SystemDatabase
    let metrics: StrataMetrics
    let logger: Logger
    /// Who may do what: grants and anonymous access from the system database when the server has
    /// authentication, otherwise the given policy (open by default).
    let accessPolicy: any AccessPolicy
    /// Accounts, tokens and federation; nil for a server built without them.
    let auth: AuthServices?
    /// Blob containers: metadata in the system database, content under `<data>/blobs`.
    let blobs: BlobServices
    private let services = Mutex<[String: ODataService]>([:])
    /// Fired when requests in flight at shutdown have had their grace period: their statements stop.
    let shutdown = InterruptSignal(reason: .shutdown)

    /// What the request stages read of the configuration.
    let requestSettings: RequestSettings

    /// How many scans each caller may run at once.
    let scanAdmission: ScanAdmission

    /// The limits a request's statements run under, before its service and caller are known.
    func statementLimits(connection: ObjectIdentifier?) -> StatementLimits {
        StatementLimits(timeout: configuration.statementTimeout, connection: connection, shutdown: shutdown, admission: scanAdmission)
    }

    init(configuration: StrataConfiguration, store: any ServiceStore, metrics: StrataMetrics, logger: Logger,
         auth: AuthServices? = nil, accessPolicy: any AccessPolicy = OpenAccessPolicy()) {
        self.auth = auth
        self.scanAdmission = ScanAdmission(perCaller: configuration.maxQueriesPerCaller, queuePerCaller: ScanAdmission.queueFactor * configuration.maxQueriesPerCaller)
        self.accessPolicy = auth.map { GrantPolicy(store: $0.store, logger: logger) } ?? accessPolicy
        self.configuration = configuration
        self.requestSettings = RequestSettings(
            pageSize: configuration.pageSize, queryLimits: configuration.queryLimits,
            sqlRowLimit: configuration.sqlRowLimit, sqlCrossJoinLimit: configuration.sqlCrossJoinLimit)
        self.store = store
        self.system = SystemDatabase(database: store.system, schema: store.systemSchema)
        self.metrics = metrics
        self.logger = logger
        self.blobs = BlobServices(
            catalog: BlobCatalog(system: system),
            store: FileBlobStore(root: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true).appendingPathComponent("blobs"),
                                 logger: logger),
            authorizer: BlobAuthorizer(store: auth?.store), maxBlobSize: configuration.maxBlobSize, logger: logger,
            now: configuration.auth.now)
    }

    /// Prepares the system database, runs the configuration's provisioners, and loads every catalog.
    func start() async throws {
        try await system.migrate(logger: logger)
        try await blobs.start()
        if !configuration.provisioners.isEmpty {
            let accounts = auth.map { auth in
                ProvisioningTarget.AccountProvisioning(store: auth.store, hasher: auth.hasher, announce: auth.settings.announce,
                                                       now: auth.settings.now)
            }
            let target = ProvisioningTarget(store: store, system: system, blobs: blobs, accounts: accounts, logger: logger)
            for provisioner in configuration.provisioners {
                try await provisioner.provision(target)
            }
        }
        try await reloadServices()
    }

    /// Discovers services and reads their catalogs again (after a schema change, for example).
    func reloadServices() async throws {
        let settings = try await system.serviceSettings()
        var loaded: [String: ODataService] = [:]
        for var storage in try await store.discover() {
            let tables = try await storage.database.read { [storage] connection in
                try await storage.catalogReader.readTables(connection)
            }
            storage.dateForms = DateForms(tables, service: storage.name, logger: logger)
            let serviceSettings = settings[storage.name] ?? ServiceSettings()
            let model = ModelBuilder(serviceName: storage.name, namespace: serviceSettings.namespace ?? storage.name, logger: logger)
                .build(tables)
            loaded[storage.name] = ODataService(storage: storage, model: model, settings: serviceSettings)
            logger.info("Serving service", metadata: [
                "service": .string(storage.name), "entitySets": "\(model.entitySets.count)", "associations": "\(model.associations.count)",
            ])
        }
        services.withLock { $0 = loaded }
    }

    func service(named name: String) -> ODataService? {
        services.withLock { $0[name] }
    }

    var allServices: [ODataService] {
        services.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }

    func close() async {
        await store.close()
    }
}
