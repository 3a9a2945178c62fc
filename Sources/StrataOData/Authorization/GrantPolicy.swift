import Logging
import StrataCore
import StrataIdentity

/// The access policy of a server with accounts: anonymous access per service, built-in roles, and
/// grants of table rights (with row filters) to roles.
///
/// A caller may do an action on a table when any of these allows it:
/// - the service allows anonymous reads and the action is a read (for everyone, signed in or not);
/// - a built-in role held for the service (or for every service) includes the action;
/// - a grant to one of the caller's roles names the action on that table or on every table.
///
/// Grants without a filter allow every row; otherwise the allowed rows are those any applicable
/// filter selects (their `or`). Anonymous access and grants come from the store's in-memory
/// snapshot (``AccessSettingsCache``), not a statement per call: changes made through this
/// server's `/admin` apply to the next request, changes made by another process (`strata grant`,
/// `strata revoke` on the same data) within ``AuthSettings/cacheMaxAge`` (1 s by default).
package struct GrantPolicy: AccessPolicy {
    let store: AuthStore
    let logger: Logger

    package init(store: AuthStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    package func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
        // Built-in roles need no lookup: most signed-in requests are decided without a statement.
        let roles = principal?.roles(in: service.name) ?? []
        if roles.contains(where: { BuiltInRole(rawValue: $0)?.actions.contains(action) == true }) {
            return .unrestricted
        }
        if action == .read, try await store.anonymousAccess(service.name) == .read {
            return .unrestricted
        }
        guard let principal else {
            throw AuthErrors.unauthenticated("Sign in to \(Self.verb(action)) \(table) in \(service.name).")
        }
        var filters: [BoundExpression] = []
        for grant in try await store.grants(service: service.name, table: table, action: action, roles: roles) {
            guard let text = grant.rowFilter else { return .unrestricted }
            do {
                filters.append(try GrantRowFilter.bind(text, claims: principal.claims, entitySet: table, model: service.model))
            } catch is GrantRowFilter.MissingClaim {
                continue
            } catch {
                // The table changed since the grant was made; a filter that no longer fits allows nothing.
                logger.warning("A row filter no longer fits its table; the grant allows nothing", metadata: [
                    "service": .string(service.name), "table": .string(table), "role": .string(grant.role),
                ])
            }
        }
        guard let first = filters.first else {
            throw AuthErrors.forbidden("\(principal.subject) may not \(Self.verb(action)) \(table) in \(service.name).")
        }
        let combined = filters.dropFirst().reduce(first) { either, next in
            BoundExpression(type: .boolean, node: .binary(.or, either, next, operandType: .boolean))
        }
        return RowAccess(filter: combined)
    }

    /// Anyone may see every set of a service they may read anonymously, and so may a holder of a
    /// built-in role there or of a grant on every table; a caller with grants on some tables sees
    /// those. A caller with none of these may use nothing: 401 when anonymous, 403 when signed in.
    package func scope(of service: ODataService, principal: Principal?) async throws -> ServiceScope {
        if try await store.anonymousAccess(service.name) == .read { return .everything }
        guard let principal else {
            throw AuthErrors.unauthenticated("Sign in to use the service \(service.name).")
        }
        let roles = principal.roles(in: service.name)
        if roles.contains(where: { BuiltInRole(rawValue: $0) != nil }) { return .everything }
        let grants = try await store.grants(service: service.name, roles: roles)
        guard !grants.isEmpty else {
            throw AuthErrors.forbidden("\(principal.subject) has no rights in the service \(service.name).")
        }
        if grants.contains(where: { $0.table == nil }) { return .everything }
        return .sets(Set(grants.compactMap(\.table)))
    }

    static func verb(_ action: TableAction) -> String {
        switch action {
        case .read: return "read"
        case .insert: return "insert into"
        case .update: return "update"
        case .delete: return "delete from"
        }
    }
}
