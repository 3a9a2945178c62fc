import StrataCore
import StrataIdentity

/// The rows of a table a caller may touch: all of them, or those a bound filter expression selects.
package struct RowAccess: Sendable {
    /// A boolean expression bound against the table's entity type; nil means every row.
    package var filter: BoundExpression?

    static let unrestricted = RowAccess(filter: nil)
}

/// The entity sets of a service a caller may know of: those it holds some right on. A caller is
/// served a model of these alone (``ServedService``), so no answer — `$metadata`, a `$sql` error,
/// a `$tables` listing, a `$batch` part — names a table or a navigation to one it may not use.
package enum ServiceScope: Sendable, Hashable {
    /// Every set: anonymous reading, a built-in role, or a grant on every table.
    case everything
    /// The sets named by the caller's grants (for any action).
    case sets(Set<String>)
}

/// Decides who may do what to which table. Every request first asks for its caller's scope in the
/// service, before anything else of the request is looked at; every read and write then asks for
/// each table it touches (the target, expanded and joined tables), and applies the row filter it returns.
package protocol AccessPolicy: Sendable {
    /// Throws 401 (no or bad credentials where some are needed) or 403 (signed in, not allowed).
    func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess

    /// The sets of the service the caller may know of; throws 401 or 403 when it may use nothing
    /// there, so that not even the names of its tables and columns are answered.
    func scope(of service: ODataService, principal: Principal?) async throws -> ServiceScope
}

extension AccessPolicy {
    /// A policy that decides per table only lets every caller know of every set.
    package func scope(of service: ODataService, principal: Principal?) async throws -> ServiceScope {
        .everything
    }
}

/// Everything is allowed to everyone. Used for servers without accounts.
package struct OpenAccessPolicy: AccessPolicy {
    package init() {}

    package func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
        .unrestricted
    }
}
