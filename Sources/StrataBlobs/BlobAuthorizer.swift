import StrataCore
import StrataIdentity

/// Who may do what with containers and blobs, on the same accounts, roles and tokens as the
/// data services.
///
/// A caller may do an action in a container when any of these allows it:
/// - the container is `public-read` and the action is ``BlobAction/read`` (anyone, signed in or not);
/// - a built-in role held for every service includes it: `reader` reads, `editor` and `admin`
///   read, write and delete (roles held for one service are about that service's tables, not blobs);
/// - a role the caller holds was granted the action on that container or on every container
///   (`strata grant container …`).
///
/// Creating and removing containers and changing their access is administration: it needs
/// `admin` for every service, like `/admin`. Grants are read on every request, so changes apply at once.
package struct BlobAuthorizer: Sendable {
    /// Nil on a server without accounts, where everything is allowed.
    let store: AuthStore?

    package init(store: AuthStore? = nil) {
        self.store = store
    }

    func authorize(_ action: BlobAction, in container: BlobContainer, principal: Principal?) async throws {
        guard let store else { return }
        if action == .read, container.access == .publicRead { return }
        if let principal, Self.builtInAllows(action, principal) { return }
        guard let principal else {
            throw AuthErrors.unauthenticated("Sign in to \(Self.verb(action)) blobs in the container \(container.name).")
        }
        guard try await store.hasContainerGrant(action, container: container.name, roles: principal.roles) else {
            throw AuthErrors.forbidden("\(principal.subject) may not \(Self.verb(action)) blobs in the container \(container.name).")
        }
    }

    /// Creating, removing and opening up containers.
    func authorizeAdministration(of container: String, principal: Principal?) throws {
        guard store != nil else { return }
        guard let principal else {
            throw AuthErrors.unauthenticated("Sign in as an administrator to create or remove the container \(container).")
        }
        guard principal.roles.contains(BuiltInRole.admin.rawValue) else {
            throw AuthErrors.forbidden("\(principal.subject) does not hold the admin role, which creating and removing containers needs.")
        }
    }

    /// The containers among `all` the caller may list: what `GET /blobs` shows.
    func readable(_ all: [BlobContainer], principal: Principal?) async throws -> [BlobContainer] {
        guard let store else { return all }
        if let principal, Self.builtInAllows(.read, principal) { return all }
        var granted: Set<String> = []
        if let principal { granted = try await store.grantedContainers(.read, roles: principal.roles) }
        if granted.contains(AuthStore.every) { return all }
        return all.filter { $0.access == .publicRead || granted.contains($0.name) }
    }

    private static func builtInAllows(_ action: BlobAction, _ principal: Principal) -> Bool {
        principal.roles.contains { role in
            switch BuiltInRole(rawValue: role) {
            case .reader?: return action == .read
            case .editor?, .admin?: return true
            case nil: return false
            }
        }
    }

    static func verb(_ action: BlobAction) -> String {
        switch action {
        case .read: return "read"
        case .write: return "write"
        case .delete: return "delete"
        }
    }
}
