import Logging
import StrataCore
import Synchronization

/// A loaded service, and the narrower models it is served as to callers without the roles its
/// model file names for some columns (`readableBy`).
///
/// Each caller's view is an ``ODataService`` of its own, made the first time a caller with that
/// combination of the restricting roles comes, and kept: every stage of a request (planning,
/// `$metadata`, `$tables`, `$sql`, `$changes`, writes) then sees only what the caller may read,
/// without knowing that a column was left out. Administrators see the full model.
final class ServedService: Sendable {
    let full: ODataService
    private let loaded: ServiceLoader.Loaded
    private let restrictingRoles: Set<String>
    private let views = Mutex<[Set<String>: ODataService]>([:])
    private let logger: Logger

    init(full: ODataService, loaded: ServiceLoader.Loaded, logger: Logger) {
        self.full = full
        self.loaded = loaded
        self.restrictingRoles = loaded.restrictingRoles
        self.logger = logger
    }

    /// The service as `principal` is served: the full model unless a column is restricted to roles
    /// it does not hold (the roles are looked at only then).
    func serving(_ principal: Principal?) throws -> ODataService {
        guard !restrictingRoles.isEmpty else { return full }
        return try serving(principal?.roles(in: full.name) ?? [])
    }

    /// The service as a caller holding `roles` (for this service) is served.
    func serving(_ roles: Set<String>) throws -> ODataService {
        guard !restrictingRoles.isEmpty, !roles.contains("admin") else { return full }
        let held = roles.intersection(restrictingRoles)
        if let view = views.withLock({ $0[held] }) { return view }
        guard let catalog = loaded.catalog(for: held) else {
            views.withLock { $0[held] = full }
            return full
        }
        // Cannot fail on names: they are the full model's (pinned), and fewer of them.
        let built = try ModelBuilder(serviceName: full.name, namespace: full.model.namespace, logger: Logger(label: "strata.views"))
            .build(catalog)
        var model = built
        model.model.containerName = full.model.containerName
        var storage = full.storage
        storage.names = built.names
        let view = ODataService(storage: storage, catalog: model, settings: full.settings, maxProtocolVersion: full.maxProtocolVersion)
        logger.debug("Made a view of a service for callers with roles", metadata: [
            "service": .string(full.name), "roles": .string(held.sorted().joined(separator: ",")),
        ])
        return views.withLock { views in
            if let made = views[held] { return made }
            views[held] = view
            return view
        }
    }
}
