import Foundation
import StrataCore

/// The exchanges behind the adapter's methods, shared by their async and ``AsyncRequest`` forms.
extension RemoteDataAdapter {
    typealias Progress = (@Sendable (TransferProgress) -> Void)?

    func fetchTable(_ name: String, filter: String?, orderBy: String?, select: [String], top: Int?, skip: Int?,
                    progress: Progress) async throws(StrataError) -> DataTable {
        var options: [String] = []
        if let filter { options.append("$filter=" + PercentEncoding.encodeQueryValue(filter)) }
        if let orderBy { options.append("$orderby=" + PercentEncoding.encodeQueryValue(orderBy)) }
        if !select.isEmpty { options.append("$select=" + PercentEncoding.encodeQueryValue(select.joined(separator: ","))) }
        if let top { options.append("$top=\(top)") }
        if let skip { options.append("$skip=\(skip)") }
        let path = "$tables/" + PercentEncoding.encodePathSegmentName(name) + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
        let response = try await send(StrataRequest(.get, dataService.rootPath + path), progress: progress)
        return try Self.single(try Self.tables(in: response), of: response)
    }

    func fetchTables(_ names: [String], progress: Progress) async throws(StrataError) -> [DataTable] {
        guard !names.isEmpty else { return [] }
        let list = names.map { PercentEncoding.encodeQueryValue($0) }.joined(separator: ",")
        let response = try await send(StrataRequest(.get, dataService.rootPath + "$tables?names=" + list), progress: progress)
        let tables = try Self.tables(in: response)
        guard tables.map(\.name) == names else {
            throw ResponseReader.invalid(response, "The server answered the tables \(tables.map(\.name)) for \(names).")
        }
        return tables.map(DataTable.init)
    }

    func fetchSQL(_ sql: String, parameters: [String: ODataValue], progress: Progress) async throws(StrataError) -> DataTable {
        let body = DataTableQuery(sql: sql, parameters: parameters).jsonBytes
        let response = try await send(.json(.post, dataService.rootPath + "$sql", body: body), progress: progress)
        return try Self.single(try Self.tables(in: response), of: response)
    }

    /// Builds one delta from the tables, sends it and merges the results into copies of the tables.
    func sendChanges(_ tables: [DataTable], mode: DataTableDelta.Mode, idempotencyKey: IdempotencyKey? = nil,
                     progress: Progress) async throws(StrataError) -> (tables: [DataTable], summary: ApplySummary) {
        var upserts: [DataTableChange] = []
        var deletes: [[DataTableChange]] = []
        for (index, table) in tables.enumerated() {
            let changes: [DataTableChange]
            do {
                changes = try table.changes(idPrefix: "\(index)/")
            } catch {
                throw StrataError(.invalidRequest, message: error.message, underlying: error)
            }
            upserts += changes.filter { $0.kind != .delete }
            deletes.append(changes.filter { $0.kind == .delete })
        }
        // Details are deleted before their masters: deletes go in reverse table order.
        let delta = DataTableDelta(mode: mode, changes: upserts + deletes.reversed().flatMap { $0 })
        guard !delta.changes.isEmpty else {
            return (tables, ApplySummary(response: DataTableChangeResponse(results: [])))
        }
        let types = Dictionary(tables.map { table in
            (table.name, Dictionary(table.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first }))
        }, uniquingKeysWith: { first, _ in first })
        let (decoded, replayed) = try await sendDelta(delta.jsonBytes, delta: delta, idempotencyKey: idempotencyKey,
                                                      fieldTypes: { types[$0] }, progress: progress)
        var merged = tables
        for index in merged.indices { merged[index].merge(decoded, idPrefix: "\(index)/") }
        var summary = ApplySummary(response: decoded)
        summary.replayed = replayed
        return (merged, summary)
    }

    /// Sends a delta exactly as `body` (its JSON), under an idempotency key when one is given, and
    /// reads the results with the tables' field types; answers whether the server replayed stored
    /// results. The replica sends the bytes it sealed, so that a retry is the same request.
    func sendDelta(_ body: [UInt8], delta: DataTableDelta, idempotencyKey: IdempotencyKey?,
                   fieldTypes: @Sendable (String) -> [String: EDMPrimitiveType]?,
                   progress: Progress = nil) async throws(StrataError) -> (response: DataTableChangeResponse, replayed: Bool) {
        var headers = StrataHeaders()
        if let idempotencyKey { headers[IdempotencyKey.headerName] = idempotencyKey.headerValue }
        let response = try await send(.json(.post, dataService.rootPath + "$changes", body: body, headers: headers), progress: progress)
        do {
            let decoded = try DataTableChangeResponse(json: Array(response.body), delta: delta, fieldTypes: fieldTypes)
            return (decoded, response.headers[IdempotencyKey.replayedHeaderName] == "true")
        } catch {
            throw ResponseReader.invalid(response, "The change results cannot be read: \(error.message).")
        }
    }

    /// Sends through the data service: its version headers, the connection's authenticator, and
    /// an unsuccessful status turned into the server's OData error.
    private func send(_ request: StrataRequest, progress: Progress) async throws(StrataError) -> StrataResponse {
        try await dataService.send(request, progress: progress)
    }

    private static func tables(in response: StrataResponse) throws(StrataError) -> [CompactTable] {
        do {
            return try CompactTable.decode(Array(response.body))
        } catch {
            throw ResponseReader.invalid(response, "The answer is not a data table document: \(error.message).")
        }
    }

    private static func single(_ tables: [CompactTable], of response: StrataResponse) throws(StrataError) -> DataTable {
        guard tables.count == 1 else { throw ResponseReader.invalid(response, "The server answered \(tables.count) tables for one.") }
        return DataTable(tables[0])
    }
}
