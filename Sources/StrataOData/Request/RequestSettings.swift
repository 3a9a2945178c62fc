import StrataCore

/// The server-wide settings every stage of a request reads, carried by its ``ODataCall``: the
/// request stages see these values, never the running server (``StrataRuntime``) they come from.
package struct RequestSettings: Sendable {
    /// Rows per page of a collection (`__next`), unless the service sets its own.
    package var pageSize: Int
    /// Limits on `$filter`, `$expand`, `$top` and the URL.
    package var queryLimits: QueryLimits
    /// The most rows one `$sql` query may answer.
    package var sqlRowLimit: Int
    /// The most row combinations a `$sql` cross join may build.
    package var sqlCrossJoinLimit: Int
    /// The most entities `$expand` places inline in one response.
    var maxExpandedEntities: Int
    /// The most bytes of a response the server builds whole before sending it (a `$sql` result,
    /// a `$batch`'s answers).
    package var maxBufferedResponse: Int

    package init(pageSize: Int, queryLimits: QueryLimits, sqlRowLimit: Int, sqlCrossJoinLimit: Int, maxExpandedEntities: Int, maxBufferedResponse: Int) {
        self.pageSize = pageSize
        self.queryLimits = queryLimits
        self.sqlRowLimit = sqlRowLimit
        self.sqlCrossJoinLimit = sqlCrossJoinLimit
        self.maxExpandedEntities = maxExpandedEntities
        self.maxBufferedResponse = maxBufferedResponse
    }
}
