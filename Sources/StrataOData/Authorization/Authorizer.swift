import StrataCore
import StrataIdentity

/// The authorization step of a request: asks the access policy once for each table the request
/// touches, before anything is planned, and hands the answers on as values (``ReadAccess``,
/// ``RowAccess``).
package struct Authorizer: Sendable {
    let policy: any AccessPolicy
    let service: ODataService
    package let principal: Principal?

    /// The authorizer of one call: its service and its caller (a `$batch`'s operations share both).
    package init(policy: any AccessPolicy, call: ODataCall) {
        self.init(policy: policy, service: call.service, principal: call.principal)
    }

    init(policy: any AccessPolicy, service: ODataService, principal: Principal?) {
        self.policy = policy
        self.service = service
        self.principal = principal
    }

    /// Whether the caller may do `action` on `table`, and on which rows.
    package func authorize(_ action: TableAction, _ table: String) async throws -> RowAccess {
        try await policy.authorize(action, table: table, in: service, principal: principal)
    }

    /// Read access for a GET, whatever it addresses: a property or its `$value` touches only the
    /// path's tables, `$links` the linked entities' too.
    package func access(toRead request: ReadRequest) async throws -> ReadAccess {
        if let linked = request.linkTarget {
            return try await readAccess(linked.path, linked.query)
        }
        switch request.path.terminal {
        case .property, .rawValue:
            return try await pathAccess(request.path)
        case .entities, .count, .links:
            return try await readAccess(request.path, request.query)
        }
    }

    /// Read access for a read of `path` with `query`: the expanded tables (depth first), then the
    /// path's tables from its first step, then the joined ones — the order in which a refusal is
    /// reported, each table asked once.
    package func readAccess(_ path: ResolvedPath, _ query: BoundQuery) async throws -> ReadAccess {
        var access = ReadAccess()
        try await addExpansions(query.projection, to: &access)
        try await addPath(path, to: &access)
        // The tables of the joins the planner builds for `$filter` and `$orderby` paths: each
        // chain's last hop, one join per distinct chain.
        var chains: Set<[String]> = []
        for chain in query.navigationJoins {
            guard let hop = chain.last, chains.insert(chain.map(\.property.name)).inserted else { continue }
            try await add(hop.targetSet.name, to: &access)
        }
        return access
    }

    /// Read access for the tables of `path` only (a property, its `$value`).
    func pathAccess(_ path: ResolvedPath) async throws -> ReadAccess {
        var access = ReadAccess()
        try await addPath(path, to: &access)
        return access
    }

    private func addPath(_ path: ResolvedPath, to access: inout ReadAccess) async throws {
        for step in path.steps { try await add(step.set.name, to: &access) }
    }

    private func addExpansions(_ projection: BoundProjection, to access: inout ReadAccess) async throws {
        for expansion in projection.expansions {
            try await add(expansion.targetSet.name, to: &access)
            try await addExpansions(expansion.projection, to: &access)
        }
    }

    private func add(_ table: String, to access: inout ReadAccess) async throws {
        guard !access.decided(table) else { return }
        access.add(table, try await authorize(.read, table))
    }
}
