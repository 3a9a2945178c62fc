import Foundation
import StrataCore
import Testing

/// The change feed's wire shapes (`deleted`, `token`, `next`, tombstones): what the streaming writer
/// writes, the reader reads back unchanged, with keys in their key fields' types.
@Suite struct CompactTableDeltaTests {
    /// A composite key of two types, not the first fields, so key order and typing are both exercised.
    static let fields = [
        DataTableField(name: "note", type: .string),
        DataTableField(name: "region", type: .string, required: true, key: true),
        DataTableField(name: "amount", type: .decimal),
        DataTableField(name: "number", type: .int64, required: true, key: true),
    ]

    static func car() -> CompactTable {
        CompactTable(name: "Car", fields: [
            DataTableField(name: "carID", type: .int32, required: true, key: true, serverGenerated: true),
            DataTableField(name: "make", type: .string),
        ], rows: [[.int32(5), .string("Audi")]], deleted: [[.int32(9)], [.int32(11)]])
    }

    @Test func documentRoundTripWithTokenAndTypedKeys() throws {
        let orders = CompactTable(name: "Order", fields: Self.fields, rows: [
            [.string("x"), .string("north"), .decimal(Decimal(string: "12.5")!), .int64(9_007_199_254_740_993)],
        ], deleted: [[.string("south"), .int64(9_007_199_254_740_995)]])
        let delta = CompactTableDelta(tables: [Self.car(), orders], token: "AQ-_x")
        let bytes = delta.jsonBytes()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""rows":[[5,"Audi"]],"deleted":[[9],[11]]}"#))
        // Int64 keys travel as strings, as in rows, and come back as Int64 in key-field order.
        #expect(text.contains(#""deleted":[["south","9007199254740995"]]}"#))
        #expect(text.hasSuffix(#"}],"token":"AQ-_x"}"#))
        let decoded = try CompactTableDelta.decode(bytes)
        #expect(decoded == delta)
        #expect(decoded.tables[1].deleted == [[.string("south"), .int64(9_007_199_254_740_995)]])
        #expect(decoded.tables[1].keyFields.map(\.name) == ["region", "number"])
        #expect(decoded.tables[1].key(of: decoded.tables[1].rows[0]) == [.string("north"), .int64(9_007_199_254_740_993)])
        // The table list reads the same through the plain reader, which keeps `deleted`.
        #expect(try CompactTable.decode(bytes) == delta.tables)
    }

    @Test func streamedWriterMatchesWholeDocument() throws {
        // The server writes piece by piece; the bytes must equal the one-piece form.
        var writer = JSONWriter()
        let car = Self.car()
        CompactTableWriter.beginDocument(into: &writer)
        CompactTableWriter.begin(name: car.name, fields: car.fields, into: &writer)
        for row in car.rows { CompactTableWriter.row(row, into: &writer) }
        CompactTableWriter.endRows(into: &writer)
        CompactTableWriter.beginDeleted(into: &writer)
        for key in car.deleted! { CompactTableWriter.deletedKey(key, into: &writer) }
        CompactTableWriter.endDeleted(into: &writer)
        CompactTableWriter.endTable(into: &writer)
        CompactTableWriter.endDocument(token: nil, next: "http://h/s/$tables?names=Car&since=A&page=2", into: &writer)
        let expected = CompactTableDelta(tables: [car], next: "http://h/s/$tables?names=Car&since=A&page=2")
        #expect(writer.bytes == expected.jsonBytes())
        let decoded = try CompactTableDelta.decode(writer.bytes)
        #expect(decoded.next == "http://h/s/$tables?names=Car&since=A&page=2")
        #expect(decoded.token == nil)
    }

    @Test func singleTableFormCarriesTheTokenInside() throws {
        let delta = CompactTableDelta(tables: [Self.car()], token: "T1")
        let text = String(decoding: delta.jsonBytes(singleTable: true), as: UTF8.self)
        #expect(text.hasPrefix(#"{"name":"Car","#))
        #expect(text.hasSuffix(#""deleted":[[9],[11]],"token":"T1"}"#))
        #expect(try CompactTableDelta.decode(Array(text.utf8)) == delta)
    }

    @Test func contractExamplesRead() throws {
        // The design's example (§4) and a change event's data (§6), as the server writes them.
        let example = #"""
        {"tables":[{"name":"Car","fields":[{"name":"carID","type":"Edm.Int32","key":true},{"name":"make","type":"Edm.String"},{"name":"price","type":"Edm.Decimal"}],"rows":[[5,"Audi","18000"]],"deleted":[[9]]},
                   {"name":"Person","fields":[{"name":"personID","type":"Edm.Int32","key":true}],"rows":[],"deleted":[]}],
         "token":"AQ"}
        """#
        let delta = try CompactTableDelta.decode(Array(example.utf8))
        #expect(delta.token == "AQ")
        #expect(delta.tables.map(\.name) == ["Car", "Person"])
        #expect(delta.tables[0].rows == [[.int32(5), .string("Audi"), .decimal(18000)]])
        #expect(delta.tables[0].deleted == [[.int32(9)]])
        #expect(delta.tables[1].deleted == [])
        // A table without `deleted` (a first `track=1` read) reads as deleting nothing.
        let first = try CompactTableDelta.decode(Array(#"{"tables":[{"name":"P","fields":[{"name":"id","type":"Edm.Int32","key":true}],"rows":[[1]]}],"token":"A"}"#.utf8))
        #expect(first.tables[0].deleted == [])
        #expect(first.tables[0].rows == [[.int32(1)]])
    }

    @Test func plainTablesWriteNoDeletedMember() {
        let table = CompactTable(name: "P", fields: [DataTableField(name: "id", type: .int32, key: true)], rows: [[.int32(1)]])
        #expect(!String(decoding: table.jsonBytes, as: UTF8.self).contains("deleted"))
    }

    @Test func refusals() {
        let key = #"{"name":"id","type":"Edm.Int32","key":true}"#
        let bad = [
            // Wrong arity, wrong type, not an array, keys without key fields, a non-string token.
            #"{"name":"T","fields":[\#(key)],"rows":[],"deleted":[[1,2]]}"#,
            #"{"name":"T","fields":[\#(key)],"rows":[],"deleted":[["x"]]}"#,
            #"{"name":"T","fields":[\#(key)],"rows":[],"deleted":{}}"#,
            #"{"name":"T","fields":[{"name":"a","type":"Edm.Int32"}],"rows":[],"deleted":[[1]]}"#,
            #"{"tables":[],"token":5}"#,
            #"{"tables":[],"next":""}"#,
        ]
        for text in bad {
            #expect(throws: DataTableFormatError.self, "\(text)") { try CompactTableDelta.decode(Array(text.utf8)) }
        }
    }

    @Test func tombstoneRoundTrip() throws {
        let tombstone = ODataDeletedEntity(entitySet: "Cars", id: "https://h/cardealer/Cars(9)")
        var writer = JSONWriter()
        tombstone.write(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == #"{"@odata.context":"$metadata#Cars/$deletedEntity","id":"https:\/\/h\/cardealer\/Cars(9)"}"# ||
                text == #"{"@odata.context":"$metadata#Cars/$deletedEntity","id":"https://h/cardealer/Cars(9)"}"#)
        let read = try #require(ODataDeletedEntity(json: try JSONValue.parse(writer.bytes)))
        #expect(read == tombstone)
        #expect(read.key == .single(.int32(9)) || read.key == .single(.int64(9)))
        let composite = ODataDeletedEntity(entitySet: "Events", id: "http://h/s/Events(PartitionKey='a',RowKey='b%2Fc')")
        #expect(composite.key == .named([.init(name: "PartitionKey", value: .string("a")), .init(name: "RowKey", value: .string("b/c"))]))
        // An entity is not a tombstone.
        #expect(ODataDeletedEntity(json: try JSONValue.parse(#"{"__metadata":{"uri":"x"},"id":1}"#)) == nil)
        #expect(ODataDeletedEntity(json: try JSONValue.parse(#"{"@odata.context":"$metadata#Cars","id":"x"}"#)) == nil)
    }
}
