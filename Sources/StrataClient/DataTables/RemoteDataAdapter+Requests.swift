import Foundation
import StrataCore

/// The exchanges behind the adapter's methods, shared by their async and ``AsyncRequest`` forms.
extension RemoteDataAdapter {
    typealias Progress = (@Sendable (DataTableProgress) -> Void)?

    func fetchTable(_ name: String, filter: String?, orderBy: String?, select: [String], top: Int?, skip: Int?,
                    progress: Progress) async throws(DataTableError) -> DataTable {
        var options: [String] = []
        if let filter { options.append("$filter=" + PercentEncoding.encodeQueryValue(filter)) }
        if let orderBy { options.append("$orderby=" + PercentEncoding.encodeQueryValue(orderBy)) }
        if !select.isEmpty { options.append("$select=" + PercentEncoding.encodeQueryValue(select.joined(separator: ","))) }
        if let top { options.append("$top=\(top)") }
        if let skip { options.append("$skip=\(skip)") }
        let path = "$tables/" + PercentEncoding.encodePathSegmentName(name) + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
        let tables = try await compactTables(DataTableHTTPRequest(method: "GET", path: path), progress: progress)
        guard tables.count == 1 else { throw DataTableError(.invalidResponse, "The server answered \(tables.count) tables for one.") }
        return DataTable(tables[0])
    }

    func fetchTables(_ names: [String], progress: Progress) async throws(DataTableError) -> [DataTable] {
        guard !names.isEmpty else { return [] }
        let list = names.map { PercentEncoding.encodeQueryValue($0) }.joined(separator: ",")
        let tables = try await compactTables(DataTableHTTPRequest(method: "GET", path: "$tables?names=" + list), progress: progress)
        guard tables.map(\.name) == names else {
            throw DataTableError(.invalidResponse, "The server answered the tables \(tables.map(\.name)) for \(names).")
        }
        return tables.map(DataTable.init)
    }

    func fetchSQL(_ sql: String, parameters: [String: ODataValue], progress: Progress) async throws(DataTableError) -> DataTable {
        let body = DataTableQuery(sql: sql, parameters: parameters).jsonBytes
        let tables = try await compactTables(DataTableHTTPRequest(method: "POST", path: "$sql", body: body), progress: progress)
        guard tables.count == 1 else { throw DataTableError(.invalidResponse, "The server answered \(tables.count) tables for one query.") }
        return DataTable(tables[0])
    }

    /// Builds one delta from the tables, sends it and merges the results into copies of the tables.
    func sendChanges(_ tables: [DataTable], mode: DataTableDelta.Mode,
                     progress: Progress) async throws(DataTableError) -> (tables: [DataTable], summary: ApplySummary) {
        var upserts: [DataTableChange] = []
        var deletes: [[DataTableChange]] = []
        for (index, table) in tables.enumerated() {
            let changes = try table.changes(idPrefix: "\(index)/")
            upserts += changes.filter { $0.kind != .delete }
            deletes.append(changes.filter { $0.kind == .delete })
        }
        // Details are deleted before their masters: deletes go in reverse table order.
        let delta = DataTableDelta(mode: mode, changes: upserts + deletes.reversed().flatMap { $0 })
        guard !delta.changes.isEmpty else {
            return (tables, ApplySummary(response: DataTableChangeResponse(results: [])))
        }
        let response = try await send(DataTableHTTPRequest(method: "POST", path: "$changes", body: delta.jsonBytes), progress: progress)
        let types = Dictionary(tables.map { table in
            (table.name, Dictionary(table.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first }))
        }, uniquingKeysWith: { first, _ in first })
        let decoded: DataTableChangeResponse
        do {
            decoded = try DataTableChangeResponse(json: response.body, delta: delta) { types[$0] }
        } catch {
            throw DataTableError(.invalidResponse, "The change results cannot be read: \(error.message).")
        }
        var merged = tables
        for index in merged.indices { merged[index].merge(decoded, idPrefix: "\(index)/") }
        return (merged, ApplySummary(response: decoded))
    }

    private func compactTables(_ request: DataTableHTTPRequest, progress: Progress) async throws(DataTableError) -> [CompactTable] {
        let response = try await send(request, progress: progress)
        do {
            return try CompactTable.decode(response.body)
        } catch {
            throw DataTableError(.invalidResponse, "The answer is not a data table document: \(error.message).")
        }
    }

    /// Sends a request; an unsuccessful status becomes the server's OData error.
    private func send(_ request: DataTableHTTPRequest, progress: Progress) async throws(DataTableError) -> DataTableHTTPResponse {
        let response = try await transport.send(request, progress: progress)
        guard (200..<300).contains(response.status) else {
            if let error = ODataError.decode(status: response.status, body: response.body) {
                throw DataTableError(.server, error.message, status: response.status, code: error.code.isEmpty ? nil : error.code)
            }
            let text = String(decoding: response.body.prefix(300), as: UTF8.self)
            throw DataTableError(.server, text.isEmpty ? "The server answered \(response.status)." : text, status: response.status)
        }
        return response
    }
}
