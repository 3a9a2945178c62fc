import StrataCore

/// The rows of a table a caller may touch: all of them, or those a bound filter expression selects.
struct RowAccess: Sendable {
    /// A boolean expression bound against the table's entity type; nil means every row.
    var filter: BoundExpression?

    static let unrestricted = RowAccess(filter: nil)
}

/// Decides who may do what to which table. Every read and write asks it for each table it touches
/// (the target, expanded and joined tables), and applies the row filter it returns.
protocol AccessPolicy: Sendable {
    /// Throws 401 (no or bad credentials where some are needed) or 403 (signed in, not allowed).
    func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess

    /// Throws 401 or 403 when the caller may see nothing of the service, so that its service
    /// document and `$metadata` (which name its tables and columns) stay private too.
    func authorizeService(_ service: ODataService, principal: Principal?) async throws
}

extension AccessPolicy {
    func authorizeService(_ service: ODataService, principal: Principal?) async throws {}
}

/// Everything is allowed to everyone. Used for servers without accounts.
struct OpenAccessPolicy: AccessPolicy {
    func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
        .unrestricted
    }
}
