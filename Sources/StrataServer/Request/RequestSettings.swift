import StrataCore

/// The server-wide settings every stage of a request reads, carried by its ``ODataCall``: the
/// request stages see these values, never the running server (``StrataRuntime``) they come from.
struct RequestSettings: Sendable {
    /// Rows per page of a collection (`__next`), unless the service sets its own.
    var pageSize: Int
    /// Limits on `$filter`, `$expand`, `$top` and the URL.
    var queryLimits: QueryLimits
    /// The most rows one `$sql` query may answer.
    var sqlRowLimit: Int
    /// The most row combinations a `$sql` cross join may build.
    var sqlCrossJoinLimit: Int
    /// The most entities `$expand` places inline in one response.
    var maxExpandedEntities: Int
    /// The most bytes of a response the server builds whole before sending it (a `$sql` result,
    /// a `$batch`'s answers).
    var maxBufferedResponse: Int
}
