import Foundation
import NIOCore
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
import Testing

/// Requests and readers shared by the data table endpoint tests.
extension TestClientProtocol {
    /// `GET` a `$tables` URL and read the answer as compact tables (one, or the wrapper's list).
    func tables(_ uri: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [CompactTable] {
        let response = try await get(uri)
        #expect(response.status == .ok, "\(uri): \(response.text.prefix(400))", sourceLocation: sourceLocation)
        return try CompactTable.decode(Array(response.body.readableBytesView))
    }

    /// `POST /{service}/$sql`.
    func sql(_ sql: String, parameters: [String: ODataValue] = [:], service: String = "cardealer") async throws -> TestResponse {
        try await send(.post, "/\(service)/$sql", headers: [.contentType: "application/json"],
                       body: String(decoding: DataTableQuery(sql: sql, parameters: parameters).jsonBytes, as: UTF8.self))
    }

    /// `POST /{service}/$changes` with a delta, read back with the service's field types.
    func apply(_ delta: DataTableDelta, service: String = "cardealer",
               sourceLocation: SourceLocation = #_sourceLocation) async throws -> DataTableChangeResponse {
        let response = try await send(.post, "/\(service)/$changes", headers: [.contentType: "application/json"],
                                      body: String(decoding: delta.jsonBytes, as: UTF8.self))
        #expect(response.status == .ok, "\(response.text.prefix(400))", sourceLocation: sourceLocation)
        var types: [String: [String: EDMPrimitiveType]] = [:]
        for table in Set(delta.changes.map(\.table)) {
            let fields = try await tables("/\(service)/$tables/\(table)?$top=0").first?.fields ?? []
            types[table] = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.type) })
        }
        return try DataTableChangeResponse(json: Array(response.body.readableBytesView), delta: delta) { types[$0] }
    }

    /// One row of a table by its integer key, as field values; nil when it does not exist.
    func row(_ table: String, key: String, _ value: Int, service: String = "cardealer") async throws -> DataTableValues? {
        guard let table = try await tables("/\(service)/$tables/\(table)?$filter=\(key)%20eq%20\(value)").first,
              let row = table.rows.first else { return nil }
        return Dictionary(uniqueKeysWithValues: zip(table.fields.map(\.name), row))
    }
}

extension CompactTable {
    /// The values of one field down the rows.
    func column(_ name: String) -> [ODataValue] {
        guard let index = fields.firstIndex(where: { $0.name == name }) else { return [] }
        return rows.map { $0[index] }
    }

    func field(_ name: String) -> DataTableField? {
        fields.first { $0.name == name }
    }
}

extension DataTableChangeResponse {
    func result(_ id: String) -> DataTableChangeResult? {
        results.first { $0.id == id }
    }
}
