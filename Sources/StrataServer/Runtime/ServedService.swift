import Logging
import StrataCore
import Synchronization
import StrataIdentity
import StrataOData
import StrataStorage

/// A loaded service, and the narrower models it is served as: to callers without the roles its
/// model file names for some columns (`readableBy`), and to callers whose rights reach only some of
/// its tables (``ServiceScope``).
///
/// Each caller's view is an ``ODataService`` of its own, made the first time a caller with that
/// combination of restricting roles and sets comes, and kept: every stage of a request (planning,
/// `$metadata`, `$tables`, `$sql`, `$changes`, `$feed`, writes, error messages) then sees only what
/// the caller may know of, without knowing that a column or a table was left out. Administrators
/// see the full model.
final class ServedService: Sendable {
    let full: ODataService
    private let loaded: ServiceLoader.Loaded
    private let restrictingRoles: Set<String>
    private let views = Mutex<[ViewKey: ODataService]>([:])
    private let logger: Logger

    /// What makes two callers' views alike.
    private struct ViewKey: Hashable {
        var roles: Set<String>
        var sets: Set<String>?
    }

    /// Views kept at most; past it the cache starts again (grants come and go, and each set of
    /// tables someone was granted is a view).
    private static let maximumViews = 256

    init(full: ODataService, loaded: ServiceLoader.Loaded, logger: Logger) {
        self.full = full
        self.loaded = loaded
        self.restrictingRoles = loaded.restrictingRoles
        self.logger = logger
    }

    /// The service as `principal` is served, within `scope`: the full model unless a column is
    /// restricted to roles it does not hold (the roles are looked at only then) or its scope leaves
    /// out a set.
    func serving(_ principal: Principal?, scope: ServiceScope = .everything) throws -> ODataService {
        let sets: Set<String>?
        switch scope {
        case .everything: sets = nil
        case .sets(let names): sets = names
        }
        guard !restrictingRoles.isEmpty || sets != nil else { return full }
        return try serving(principal?.roles(in: full.name) ?? [], sets: sets)
    }

    /// The service as a caller holding `roles` (for this service) and knowing of `sets` (nil: all) is served.
    func serving(_ roles: Set<String>, sets: Set<String>? = nil) throws -> ODataService {
        guard !roles.contains("admin") else { return full }
        let key = ViewKey(roles: roles.intersection(restrictingRoles), sets: sets.map { $0.intersection(full.model.entitySets.map(\.name)) })
        guard !restrictingRoles.isEmpty || key.sets != nil else { return full }
        if let view = views.withLock({ $0[key] }) { return view }
        guard let catalog = loaded.catalog(for: key.roles, sets: key.sets) else {
            views.withLock { $0[key] = full }
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
        logger.debug("Made a view of a service", metadata: [
            "service": .string(full.name), "roles": .string(key.roles.sorted().joined(separator: ",")),
            "sets": .string(key.sets.map { $0.sorted().joined(separator: ",") } ?? "all"),
        ])
        return views.withLock { views in
            if let made = views[key] { return made }
            if views.count >= Self.maximumViews { views.removeAll() }
            views[key] = view
            return view
        }
    }
}
