import StrataCore

/// A GET as the Request stage hands it on: the resolved path, its checked query options, the
/// version condition a single entity is read under, and for `$links` what is read instead.
///
/// Authorization decides the caller's access from it (``Authorizer/access(toRead:)``), and
/// Execution's ``ReadOperation`` runs it without looking at the URL or the headers again.
package struct ReadRequest: Sendable {
    package let path: ResolvedPath
    package let query: BoundQuery
    /// `If-None-Match` of a single entity's read: a current copy is answered 304.
    let ifNoneMatch: EntityTagCondition?
    /// `Prefer: odata.maxpagesize`: pages no larger than this, when it is below the service's page size.
    let maxPageSize: Int?
    /// A `$links` read: the linked entities (the path one navigation further) and their keys only.
    let linkTarget: LinkTarget?

    struct LinkTarget: Sendable {
        var path: ResolvedPath
        var query: BoundQuery
    }

    /// Checks the query options against the path and reads the conditions that apply to it.
    package static func parse(_ call: ODataCall, _ path: ResolvedPath) throws(ODataError) -> ReadRequest {
        let query = try ReadQuery.bind(call, path)
        var ifNoneMatch: EntityTagCondition?
        var linkTarget: LinkTarget?
        switch path.terminal {
        case .entities where !path.target.isCollection:
            ifNoneMatch = try call.ifNoneMatch()
        case .links(let navigation, let key):
            let (linkPath, keysOnly) = try ReadQuery.linkTarget(path, navigation, key: key, query, model: call.service.model)
            linkTarget = LinkTarget(path: linkPath, query: keysOnly)
        default:
            break
        }
        return ReadRequest(path: path, query: query, ifNoneMatch: ifNoneMatch, maxPageSize: call.preferredMaxPageSize,
                           linkTarget: linkTarget)
    }

    /// The same read without conditions: what a `$links` read runs for the linked entities.
    init(path: ResolvedPath, query: BoundQuery, ifNoneMatch: EntityTagCondition? = nil, maxPageSize: Int? = nil,
         linkTarget: LinkTarget? = nil) {
        self.path = path
        self.query = query
        self.ifNoneMatch = ifNoneMatch
        self.maxPageSize = maxPageSize
        self.linkTarget = linkTarget
    }
}
