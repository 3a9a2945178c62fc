import StrataCore

/// The adapter's requests in the Data Abstract sample's style: created unstarted, for the caller to configure and start.
extension RemoteDataAdapter {
    /// ``table(_:where:orderBy:select:top:skip:)`` as an unstarted ``AsyncRequest``.
    public func tableRequest(_ name: String, where filter: String? = nil, orderBy: String? = nil, select: [String] = [],
                             top: Int? = nil, skip: Int? = nil) -> AsyncRequest<DataTable> {
        AsyncRequest { progress throws(StrataError) in
            try await fetchTable(name, filter: filter, orderBy: orderBy, select: select, top: top, skip: skip, progress: progress)
        }
    }

    /// ``tables(_:)`` as an unstarted ``AsyncRequest``.
    public func tablesRequest(_ names: [String]) -> AsyncRequest<[DataTable]> {
        AsyncRequest { progress throws(StrataError) in try await fetchTables(names, progress: progress) }
    }

    /// ``table(sql:parameters:)`` as an unstarted ``AsyncRequest``.
    public func tableRequest(sql: String, parameters: [String: ODataValue] = [:]) -> AsyncRequest<DataTable> {
        AsyncRequest { progress throws(StrataError) in try await fetchSQL(sql, parameters: parameters, progress: progress) }
    }

    /// ``applyChanges(_:mode:idempotencyKey:)-([DataTable])`` as an unstarted ``AsyncRequest`` whose value is the
    /// tables with the results merged in (the tables passed here are not changed).
    public func applyChangesRequest(_ tables: [DataTable], mode: DataTableDelta.Mode = .allOrNothing)
        -> AsyncRequest<(tables: [DataTable], summary: ApplySummary)> {
        AsyncRequest { progress throws(StrataError) in try await sendChanges(tables, mode: mode, progress: progress) }
    }
}
