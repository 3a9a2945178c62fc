import Foundation
import StrataCore
import Testing

/// The streaming reader of compact tables: whatever sizes the bytes arrive in, it hands out what
/// ``CompactTable/decode(_:)`` reads from the whole document, and refuses what decode refuses.
@Suite struct CompactTableReaderTests {
    /// Reads `bytes` in chunks of `size` and gathers the tables back from the events.
    static func read(_ bytes: [UInt8], chunk size: Int) throws -> (tables: [CompactTable], token: String?, next: String?, rows: Int) {
        var reader = CompactTableReader()
        var tables: [CompactTable] = []
        var open = false
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            for event in try reader.read(bytes[start ..< end]) {
                switch event {
                case .table(let name, let fields):
                    #expect(!open, "a table began inside another")
                    tables.append(CompactTable(name: name, fields: fields))
                    open = true
                case .rows(let rows):
                    #expect(open)
                    tables[tables.count - 1].rows += rows
                case .deleted(let keys):
                    #expect(open)
                    tables[tables.count - 1].deleted = (tables[tables.count - 1].deleted ?? []) + keys
                case .endTable:
                    #expect(open)
                    open = false
                }
            }
            start = end
        }
        try reader.finish()
        #expect(!open, "a table never ended")
        return (tables, reader.token, reader.next, reader.rowCount)
    }

    static let awkward = CompactTable(name: "Odd \"name\"", fields: [
        DataTableField(name: "id", type: .int64, required: true, key: true),
        DataTableField(name: "text", type: .string),
        DataTableField(name: "amount", type: .decimal),
        DataTableField(name: "flag", type: .boolean),
    ], rows: (0 ..< 40).map(awkwardRow))

    static func awkwardRow(_ index: Int) -> [ODataValue] {
        let id: ODataValue = .int64(9_007_199_254_740_000 + Int64(index))
        let text: ODataValue = index % 3 == 0 ? .null : .string("a, [b] {c} \\\"q\" ü 🚗 \(index)")
        let amount: ODataValue = .decimal(Decimal(index) / 8)
        return [id, text, amount, .boolean(index % 2 == 0)]
    }

    @Test("One table with its token, in chunks of every size from 1 byte, reads as decode reads it")
    func oneTableEveryChunkSize() throws {
        var writer = JSONWriter()
        CompactTableWriter.begin(name: Self.awkward.name, fields: Self.awkward.fields, into: &writer)
        for row in Self.awkward.rows { CompactTableWriter.row(row, into: &writer) }
        CompactTableWriter.endRows(into: &writer)
        CompactTableWriter.resume(token: "tok-1", next: nil, into: &writer)
        CompactTableWriter.endTable(into: &writer)
        let bytes = writer.bytes
        let whole = try CompactTable.decode(bytes)
        for size in [1, 2, 3, 7, 64, 1000, bytes.count] {
            let read = try Self.read(bytes, chunk: size)
            #expect(read.tables == whole, "chunks of \(size)")
            #expect(read.token == "tok-1")
            #expect(read.next == nil)
            #expect(read.rows == 40)
        }
    }

    @Test("Several tables with deleted keys and a next page, and a table without rows")
    func deltaDocument() throws {
        let empty = CompactTable(name: "Empty", fields: [DataTableField(name: "k", type: .int32, required: true, key: true)], rows: [], deleted: [])
        var awkward = Self.awkward
        let deleted: [[ODataValue]] = [[.int64(1)], [.int64(2)]]
        awkward.deleted = deleted
        let delta = CompactTableDelta(tables: [awkward, empty], token: nil, next: "https://h/s/$tables?since=x&page=2")
        let bytes = delta.jsonBytes()
        for size in [1, 5, 333, bytes.count] {
            let read = try Self.read(bytes, chunk: size)
            #expect(read.tables == delta.tables, "chunks of \(size)")
            #expect(read.next == delta.next)
            #expect(read.token == nil)
        }
        // Whitespace and a byte order mark, as a hand-written document may have.
        let spaced = Array("\u{FEFF} { \"tables\" : [ { \"name\" : \"T\" , \"fields\" : [ {\"name\":\"k\",\"type\":\"Edm.Int32\",\"key\":true} ] , \"rows\" : [ [ 1 ] , [ 2 ] ] } ] , \"token\" : \"t\" } \n".utf8)
        let read = try Self.read(spaced, chunk: 1)
        #expect(read.tables.map(\.rows) == [[[.int32(1)], [.int32(2)]]])
        #expect(read.token == "t")
        // Several tables with whitespace between them: a chunk may end after the comma, or inside the space.
        let table = #"{ "name" : "T" , "fields" : [ {"name":"k","type":"Edm.Int32","key":true} ] , "rows" : [ [ 1 ] ] }"#
        let several = Array("{ \"tables\" : [ \(table) ,  \n \(table) , \(table) ] }".utf8)
        for size in 1 ... 7 {
            #expect(try Self.read(several, chunk: size).tables.map(\.rows) == Array(repeating: [[ODataValue.int32(1)]], count: 3), "chunks of \(size)")
        }
    }

    @Test("Truncated, malformed or out-of-order documents are refused with what is wrong")
    func refusals() throws {
        let bytes = Self.awkward.jsonBytes
        // Every truncation is refused, at read or at finish; none reads as a complete table.
        for cut in stride(from: 1, to: bytes.count - 1, by: 37) {
            #expect(throws: DataTableFormatError.self, "cut at \(cut)") { try Self.read(Array(bytes[..<cut]), chunk: 50) }
        }
        func message(_ text: String) -> String? {
            do {
                _ = try Self.read(Array(text.utf8), chunk: 4)
                return nil
            } catch {
                return (error as? DataTableFormatError)?.message
            }
        }
        #expect(message(#"{"name":"T","rows":[[1]],"fields":[{"name":"k","type":"Edm.Int32"}]}"#)?.contains("no fields") == true)
        #expect(message(#"{"name":"T","fields":[{"name":"k","type":"Edm.Int32"}],"rows":[[1,2]]}"#)?.contains("table.rows[0] must be an array of 1 values") == true)
        #expect(message(#"{"name":"T","fields":[{"name":"k","type":"Edm.Int32"}],"rows":[["x"]]}"#)?.contains("table.rows[0].k") == true)
        #expect(message(#"{"tables":[{"name":"T","fields":[{"name":"k","type":"Edm.Int32"}],"rows":[[1]]},{"fields":[]}]}"#)?.contains("tables[1] has no name") == true)
        #expect(message(#"{"name":"T","fields":[{"name":"k","type":"Edm.Int32"}],"rows":[]} x"#)?.contains("after") == true)
        #expect(message(#"[1]"#)?.contains("JSON object") == true)
        #expect(message(#"{"token":"t"}"#)?.contains("no table") == true)
        #expect(message(#"{"name":"T","fields":[{"name":"k","type":"Edm.Int32"}],"rows":[[1]],"token":""}"#)?.contains("token") == true)
    }
}
