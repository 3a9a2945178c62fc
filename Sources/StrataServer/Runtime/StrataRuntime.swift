import Foundation
import Logging
import StrataCore
import StrataSQL
import Synchronization
import StrataBlobs
import StrataFeed
import StrataIdentity
import StrataOData
import StrataStorage

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
    let auth: AuthRuntime?
    /// Blob containers: metadata in the system database; content in it too on PostgreSQL, under
    /// `<data>/blobs` on SQLite (``BlobRuntime/make(system:dataDirectory:authorizer:maxBlobSize:logger:now:contentReads:)``).
    let blobs: BlobRuntime
    /// The change feed's token keys, retention and clock.
    let feed: FeedSettings
    /// The change streams, one hub per tracked service with subscribers.
    let feedHubs: FeedHubs
    private let services = Mutex<[String: ServedService]>([:])
    private let reloads = SerialRunner()
    /// Fired when requests in flight at shutdown have had their grace period: their statements stop.
    let shutdown = InterruptSignal(reason: .shutdown)
    private let draining = Mutex(false)
    /// Keeps tracked services' change logs within ``StrataConfiguration/changeRetention``.
    let pruner = ChangeLogPruner()

    /// Whether a shutdown has begun: `/health/ready` then answers 503 so that balancers send no
    /// new requests while those in flight finish.
    var isDraining: Bool { draining.withLock { $0 } }

    /// Also ends the change streams: a stream never finishes on its own, and its clients resume
    /// on another server with `Last-Event-ID`.
    func beginDraining() {
        draining.withLock { $0 = true }
        let hubs = feedHubs
        Task { await hubs.closeAll() }
    }

    /// The change-stream hub of a service (its full model, whatever the caller is served).
    func feedHub(for service: String) -> FeedHub? {
        self.service(named: service).map(feedHubs.hub(for:))
    }

    /// What the request stages read of the configuration.
    let requestSettings: RequestSettings

    /// How many scans each caller may run at once.
    let scanAdmission: ScanAdmission

    /// The limits a request's statements run under, before its service and caller are known.
    func statementLimits(connection: ObjectIdentifier?) -> StatementLimits {
        StatementLimits(timeout: configuration.statementTimeout, connection: connection, shutdown: shutdown, admission: scanAdmission)
    }

    init(configuration: StrataConfiguration, store: any ServiceStore, metrics: StrataMetrics, logger: Logger,
         auth: AuthRuntime? = nil, accessPolicy: any AccessPolicy = OpenAccessPolicy()) {
        self.auth = auth
        self.scanAdmission = ScanAdmission(perCaller: configuration.maxQueriesPerCaller, queuePerCaller: ScanAdmission.queueFactor * configuration.maxQueriesPerCaller)
        self.accessPolicy = auth.map { GrantPolicy(store: $0.store, logger: logger) } ?? accessPolicy
        self.configuration = configuration
        self.requestSettings = RequestSettings(
            pageSize: configuration.pageSize, queryLimits: configuration.queryLimits,
            sqlRowLimit: configuration.sqlRowLimit, sqlCrossJoinLimit: configuration.sqlCrossJoinLimit,
            maxExpandedEntities: configuration.maxExpandedEntities, maxBufferedResponse: configuration.maxBufferedResponse)
        self.store = store
        self.system = SystemDatabase(database: store.system, schema: store.systemSchema)
        self.metrics = metrics
        self.logger = logger
        self.feed = FeedSettings(keys: FeedKeyRing(system: system, logger: logger), retention: configuration.changeRetention,
                                 now: configuration.auth.now)
        self.feedHubs = FeedHubs(settings: feed, logger: logger)
        self.blobs = BlobRuntime.make(system: system, dataDirectory: configuration.dataDirectory,
                                       authorizer: BlobAuthorizer(store: auth?.store), maxBlobSize: configuration.maxBlobSize,
                                       logger: logger, now: configuration.auth.now, contentReads: store.replicatedSystem)
    }

    /// Prepares the system database, runs the configuration's provisioners, and loads every catalog.
    func start() async throws {
        let created = try await system.migrate(logger: logger)
        await announceSystemPlace(created: created)
        try await auth?.startSigningKeys()
        try await feed.keys.start(now: feed.now(), retention: feed.retention)
        try await blobs.start()
        if !configuration.provisioners.isEmpty {
            let accounts = auth.map { auth in
                ProvisioningTarget.AccountProvisioning(store: auth.store, hasher: auth.hasher, announce: auth.settings.announce,
                                                       now: auth.settings.now)
            }
            let target = ProvisioningTarget(store: store, system: system, blobs: blobs, accounts: accounts,
                                            modelDirectory: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true), logger: logger)
            for provisioner in configuration.provisioners {
                try await provisioner.provision(target)
            }
        }
        let report = try await reloadServices()
        if let (_, error) = report.refused.min(by: { $0.key < $1.key }) { throw error }
        pruner.start(retention: configuration.changeRetention, interval: configuration.changePruneInterval, logger: logger) { [weak self] in
            self?.allServices ?? []
        }
    }

    /// One line at start saying where Strata's own tables are: a server given someone else's
    /// PostgreSQL database adds a schema to it, which its owner should hear of.
    private func announceSystemPlace(created: Bool) async {
        let place = (try? await system.place()) ?? "the system database"
        if created {
            let elsewhere = configuration.systemDatabase == nil ? " (--system-database keeps them elsewhere)" : ""
            logger.notice("Created \(place) for Strata's own tables (accounts, grants, settings)\(elsewhere)")
        } else {
            logger.info("Strata's own tables (accounts, grants, settings) are in \(place)")
        }
    }

    /// Discovers services and reads their catalogs and model files again (after a schema change or
    /// an edited model file, say). A service whose model file is refused keeps being served as it
    /// was (a bad file never takes a running service down); the report says which and why. At
    /// start there is nothing to keep, so ``start()`` fails instead.
    ///
    /// Model files come from the system database; a file in the data directory that is newer is
    /// applied and stored there (``ModelSource``), which tells the other servers on the database.
    @discardableResult
    func reloadServices() async throws -> ReloadReport {
        // One reload at a time: a notification and an admin request arriving together would
        // otherwise both store the same imported file and interleave their installs.
        try await reloads.run { try await self.loadServices() }
    }

    /// Reloads here, then tells every other server on the system database to reload too
    /// (`POST /admin/services/reload`, `strata service reload`).
    func reloadEverywhere() async throws -> ReloadReport {
        let report = try await reloadServices()
        try await system.announceReload()
        return report
    }

    private func loadServices() async throws -> ReloadReport {
        let settings = try await system.serviceSettings()
        let loader = ServiceLoader(modelDirectory: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true),
                                   storedModels: try await system.serviceModels(), logger: logger)
        let previous = services.withLock { $0 }
        var loaded: [String: ServedService] = [:]
        var report = ReloadReport()
        for var storage in try await store.discover() {
            let serviceSettings = settings[storage.name] ?? ServiceSettings()
            let result: ServiceLoader.Loaded
            do {
                result = try await loader.load(storage, settings: serviceSettings)
            } catch let error as ModelFileError {
                logger.error("Model file refused", metadata: ["service": .string(storage.name), "error": .string(error.description)])
                report.refused[storage.name] = error
                if let kept = previous[storage.name] { loaded[storage.name] = kept }
                continue
            }
            if let importing = result.importing {
                try await system.storeModel(importing, for: storage.name)
                logger.notice("Stored the data directory's model file for every server on the system database",
                              metadata: ["service": .string(storage.name), "path": .string(result.modelFile?.path ?? "")])
            }
            do {
                try await applyTracking(result, to: &storage)
            } catch let error as ModelFileError {
                logger.error("Change tracking refused", metadata: ["service": .string(storage.name), "error": .string(error.description)])
                report.refused[storage.name] = error
                if let kept = previous[storage.name] { loaded[storage.name] = kept }
                continue
            }
            storage.dateForms = result.dateForms
            let full = ODataService(storage: storage, catalog: result.built, settings: result.settings,
                                    maxProtocolVersion: result.maxProtocolVersion)
            loaded[storage.name] = ServedService(full: full, loaded: result, logger: logger)
            report.loaded.append(storage.name)
            logger.info("Serving service", metadata: [
                "service": .string(storage.name), "entitySets": "\(result.model.entitySets.count)",
                "associations": "\(result.model.associations.count)",
                "modelFile": .string(result.modelFile?.path ?? "none"),
            ])
        }
        services.withLock { $0 = loaded }
        return report
    }

    /// Makes the service's database capture the changes its model file asks for (creating or
    /// dropping triggers and the log, docs/design/CHANGE-FEED.md §1) and records the tracked tables
    /// on its storage. A database that refuses is the model file's error: the service keeps being
    /// served as it was, and a server that starts fails naming the service.
    private func applyTracking(_ result: ServiceLoader.Loaded, to storage: inout ServiceStorage) async throws {
        do {
            let outcome = try await ChangeCapture(storage: storage).apply(result.captureTables)
            if outcome != ChangeCapture.Outcome() {
                logger.notice("Change tracking applied", metadata: [
                    "service": .string(storage.name), "triggersCreated": .string(outcome.created.joined(separator: ",")),
                    "triggersDropped": .string(outcome.dropped.joined(separator: ",")), "logCreated": "\(outcome.logCreated)",
                    "logDropped": "\(outcome.logDropped)",
                ])
            }
        } catch let error as ChangeCaptureError {
            let line = result.modelFile?.trackAll?.line ?? result.modelFile?.tables.compactMap(\.track?.line).min()
            throw ModelFileError(path: result.modelFile?.path ?? storage.name, line: line, message: error.description)
        }
        storage.trackedTables = result.trackedTables
        storage.trackedColumnTypes = result.trackedColumnTypes
    }

    /// A service's full model, as administrators are served it.
    func service(named name: String) -> ODataService? {
        services.withLock { $0[name] }?.full
    }

    /// A service as `principal` is served it: without the columns its model file restricts to
    /// roles the caller does not hold, and without the tables it holds no right on. Throws 401 or
    /// 403 when the caller may use nothing there; nil when there is no such service.
    func service(named name: String, for principal: Principal?) async throws -> ODataService? {
        guard let served = services.withLock({ $0[name] }) else { return nil }
        let scope = try await accessPolicy.scope(of: served.full, principal: principal)
        return try served.serving(principal, scope: scope)
    }

    var allServices: [ODataService] {
        services.withLock { Array($0.values) }.map(\.full).sorted { $0.name < $1.name }
    }

    /// The services `principal` may use (the others' names are not told to it), by name.
    func services(usableBy principal: Principal?) async throws -> [ODataService] {
        var usable: [ODataService] = []
        for service in allServices {
            do {
                _ = try await accessPolicy.scope(of: service, principal: principal)
                usable.append(service)
            } catch let error as ODataError where error.status == 401 || error.status == 403 {
                continue
            }
        }
        return usable
    }

    func close() async {
        pruner.stop()
        await store.close()
    }
}

/// What loading the services did: which were loaded, and which model files were refused.
struct ReloadReport: Sendable {
    var loaded: [String] = []
    var refused: [String: ModelFileError] = [:]
}
