import Foundation
import StrataCore
import Testing

/// The data table wire formats: what one side writes, the other reads back unchanged.
@Suite struct DataTableFormatTests {
    static let fields = [
        DataTableField(name: "id", type: .int32, required: true, key: true, readOnly: true, serverGenerated: true),
        DataTableField(name: "name", type: .string, size: 50, required: true),
        DataTableField(name: "big", type: .int64),
        DataTableField(name: "price", type: .decimal),
        DataTableField(name: "born", type: .dateTime),
    ]

    @Test func tableRoundTrip() throws {
        let born = try ODataJSON.decode(.string("/Date(1257008908440)/"), as: .dateTime)
        let table = CompactTable(name: "Person", fields: Self.fields, rows: [
            [.int32(1), .string("Ann \"the\" first"), .int64(9_007_199_254_740_993), .decimal(Decimal(string: "12.50")!), born],
            [.int32(2), .string("Bob"), .null, .null, .null],
        ])
        let text = String(decoding: table.jsonBytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"name":"Person","fields":[{"name":"id","type":"Edm.Int32","size":null,"required":true,"key":true,"readOnly":true,"serverGenerated":true},"#))
        // Int64 and Decimal travel as strings, dates as \/Date(ms)\/, as in OData verbose JSON.
        #expect(text.contains(#"[1,"Ann \"the\" first","9007199254740993","12.5","\/Date(1257008908440)\/"]"#))
        #expect(try CompactTable.decode(table.jsonBytes) == [table])
        let second = CompactTable(name: "Empty", fields: [Self.fields[0]])
        #expect(try CompactTable.decode(CompactTable.documentBytes([table, second])) == [table, second])
    }

    @Test func tableRefusals() {
        let bad = [
            "", "[]", #"{"fields":[]}"#, #"{"name":"T","fields":[{"name":"a","type":"Edm.Nope"}]}"#,
            #"{"name":"T","fields":[{"name":"a","type":"Edm.Int32"}],"rows":[[1,2]]}"#,
            #"{"name":"T","fields":[{"name":"a","type":"Edm.Int32"}],"rows":[["x"]]}"#,
            #"{"tables":{}}"#, #"{"name":"T","fields":[{"name":"a","type":"Edm.Int32","size":-1}]}"#,
        ]
        for text in bad {
            #expect(throws: DataTableFormatError.self, "\(text)") { try CompactTable.decode(Array(text.utf8)) }
        }
    }

    static let types: [String: [String: EDMPrimitiveType]] = [
        "Person": ["id": .int32, "name": .string, "big": .int64, "price": .decimal, "born": .dateTime],
        "Car": ["carID": .int32, "ownerID": .int32],
    ]

    @Test func deltaRoundTrip() throws {
        let delta = DataTableDelta(mode: .independent, changes: [
            DataTableChange(id: "1", table: "Person", kind: .insert, key: ["id": .int32(-1)], values: ["name": .string("Ann"), "big": .int64(Int64.max)]),
            DataTableChange(id: "2", table: "Car", kind: .insert, key: ["carID": .int32(-2)], values: ["ownerID": .int32(-1)]),
            DataTableChange(id: "3", table: "Person", kind: .update, key: ["id": .int32(7)], original: ["price": .decimal(1)], values: ["price": .null]),
            DataTableChange(id: "4", table: "Person", kind: .delete, key: ["id": .int32(8)], original: ["name": .string("Old")]),
        ])
        let decoded = try DataTableDelta(json: delta.jsonBytes) { Self.types[$0] }
        #expect(decoded == delta)
        #expect(try DataTableDelta(json: Array(#"{"changes":[]}"#.utf8)) { Self.types[$0] }.mode == .allOrNothing)
    }

    @Test func deltaRefusals() {
        let bad = [
            #"{"changes":[{"id":"1","table":"Nope","kind":"insert"}]}"#,
            #"{"changes":[{"id":"1","table":"Person","kind":"insert","values":{"nope":1}}]}"#,
            #"{"changes":[{"id":"1","table":"Person","kind":"update","values":{"name":"x"}}]}"#,
            #"{"changes":[{"id":"1","table":"Person","kind":"insert","values":{"id":"x"}}]}"#,
            #"{"changes":[{"table":"Person","kind":"insert"}]}"#,
            #"{"changes":[{"id":"1","table":"Person","kind":"insert"},{"id":"1","table":"Person","kind":"insert"}]}"#,
            #"{"mode":"sometimes","changes":[]}"#,
        ]
        for text in bad {
            #expect(throws: DataTableFormatError.self, "\(text)") { try DataTableDelta(json: Array(text.utf8)) { Self.types[$0] } }
        }
    }

    @Test func responseRoundTrip() throws {
        let delta = DataTableDelta(changes: [
            DataTableChange(id: "a", table: "Person", kind: .insert, key: ["id": .int32(-1)], values: ["name": .string("Ann")]),
            DataTableChange(id: "b", table: "Car", kind: .update, key: ["carID": .int32(3)], values: ["ownerID": .int32(1)]),
            DataTableChange(id: "c", table: "Car", kind: .delete, key: ["carID": .int32(4)]),
        ])
        let response = DataTableChangeResponse(results: [
            DataTableChangeResult(id: "a", status: .applied, row: ["id": .int32(10), "name": .string("Ann"), "big": .null]),
            DataTableChangeResult(id: "b", status: .conflict, serverRow: ["carID": .int32(3), "ownerID": .int32(2)], message: "changed"),
            DataTableChangeResult(id: "c", status: .failed, message: "refused"),
        ], keys: ["Person": [.init(temporary: ["id": .int32(-1)], key: ["id": .int32(10)])]])
        let decoded = try DataTableChangeResponse(json: response.jsonBytes, delta: delta) { Self.types[$0] }
        #expect(decoded == response)
    }

    @Test func queryRoundTrip() throws {
        let query = DataTableQuery(sql: "SELECT * FROM Person WHERE id = :id AND name = :n AND price > :p",
                                   parameters: ["id": .int64(5), "n": .string("O'Brien"), "p": .decimal(Decimal(string: "1.25")!), "f": .boolean(true), "z": .null])
        #expect(try DataTableQuery(json: query.jsonBytes) == query)
        #expect(try DataTableQuery(json: Array(#"{"sql":"SELECT 1","parameters":{"d":1e3}}"#.utf8)).parameters["d"] == .double(1000))
        #expect(throws: DataTableFormatError.self) { try DataTableQuery(json: Array(#"{"sql":"x","parameters":{"a":[1]}}"#.utf8)) }
    }
}
