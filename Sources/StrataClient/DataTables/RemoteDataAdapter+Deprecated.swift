/// The change feed's first names on the adapter, which read as verbs with a `track` flag. The
/// Data Abstract sample's own names (`table`, `tables`, `applyChanges`) stay; the feed's follow
/// Swift's guidelines: `trackedTables(_:)`, `changes(in:since:)`.
extension RemoteDataAdapter {
    @available(*, deprecated, message: "use trackedTables(_:), or tables(_:) without tracking")
    public func fetchTables(_ names: [String], track: Bool) async throws(StrataError) -> TrackedTables {
        track ? try await trackedTables(names) : TrackedTables(tables: try await tables(names), token: nil)
    }

    @available(*, deprecated, renamed: "changes(in:since:wait:)")
    public func fetchChanges(_ names: [String], since token: String, wait: Int? = nil) async throws(StrataError) -> TableDelta {
        try await changes(in: names, since: token, wait: wait)
    }

    @available(*, deprecated, message: "use trackedTable(_:where:select:progress:), or table(_:where:orderBy:select:top:skip:) without tracking")
    public func fetchTable(_ name: String, where filter: String? = nil, select: [String] = [], track: Bool,
                           progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(StrataError) -> TrackedTables {
        try await table(name, where: filter, select: select, track: track, progress: progress)
    }

    @available(*, deprecated, renamed: "changes(in:where:select:since:wait:)")
    public func fetchChanges(table name: String, where filter: String? = nil, select: [String] = [], since token: String,
                             wait: Int? = nil) async throws(StrataError) -> TableDelta {
        try await changes(in: name, where: filter, select: select, since: token, wait: wait)
    }
}
