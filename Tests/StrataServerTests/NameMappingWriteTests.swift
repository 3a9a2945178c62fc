import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// Writes to tables and columns whose names are not OData identifiers, through every write path,
/// each checked by reading the database directly by its own names.
@Suite("Names that are not identifiers: writes")
struct NameMappingWriteTests {
    static let json: HTTPFields = [.contentType: "application/json", .accept: "application/json"]

    static func line(_ direct: DirectDatabase, _ order: Int, _ line: Int) async throws -> [ODataValue]? {
        try await direct.rows("""
            SELECT \(NamesService.detailColumns) FROM \(direct.table("Order Details")) WHERE "Order ID" = \(bind: .int32(Int32(order))) \
            AND "Line No" = \(bind: .int32(Int32(line)))
            """, NamesService.detailTypes).first
    }

    @Test("POST, PUT, MERGE and DELETE write the columns behind the names", arguments: Backend.allCases)
    func entityWrites(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            let created = try await client.send(.post, "/names/Order_Details", headers: Self.json, body: """
                {"Order_ID": 3, "Line_No": 2, "Unit_Price": "7.5", "Qty_Ordered": 3, "a_b_2": "new", "a_b": "n"}
                """)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.headers[.location]?.hasSuffix("/names/Order_Details(Order_ID=3,Line_No=2)") == true)
            #expect(created.json["d"]["a_b_2"] == .string("new"))
            #expect(try await Self.line(direct, 3, 2) == [.int32(3), .int32(2), .decimal(7.5), .int32(3), .string("new"), .string("n")])

            // PUT replaces: the omitted a_b becomes null, the omitted Qty_Ordered its default.
            let replaced = try await client.send(.put, "/names/Order_Details(Order_ID=3,Line_No=2)", headers: Self.json,
                                                 body: #"{"Order_ID": 3, "Line_No": 2, "Unit_Price": "8.25", "a_b_2": "put"}"#)
            #expect(replaced.status == .noContent, "\(replaced.text)")
            #expect(try await Self.line(direct, 3, 2) == [.int32(3), .int32(2), .decimal(8.25), .int32(1), .string("put"), .null])

            let merged = try await client.send(.init("MERGE")!, "/names/Order_Details(Order_ID=3,Line_No=2)", headers: Self.json,
                                               body: #"{"Qty_Ordered": 4, "a_b": "m"}"#)
            #expect(merged.status == .noContent, "\(merged.text)")
            #expect(try await Self.line(direct, 3, 2) == [.int32(3), .int32(2), .decimal(8.25), .int32(4), .string("put"), .string("m")])

            let value = try await client.send(.put, "/names/Order_Details(Order_ID=3,Line_No=2)/a_b_2", headers: Self.json, body: #"{"a_b_2": "one"}"#)
            #expect(value.status == .noContent, "\(value.text)")
            #expect(try await Self.line(direct, 3, 2)?[4] == .string("one"))

            let deleted = try await client.send(.delete, "/names/Order_Details(Order_ID=3,Line_No=2)")
            #expect(deleted.status == .noContent, "\(deleted.text)")
            #expect(try await Self.line(direct, 3, 2) == nil)

            // A deep insert through the navigation named after the sanitized set.
            let deep = try await client.send(.post, "/names/Orders", headers: Self.json, body: """
                {"Order_ID": 4, "Customer_Name": "Dee", "Order_Details": [{"Line_No": 1, "Unit_Price": "2.5", "a_b_2": "deep"}]}
                """)
            #expect(deep.status == .created, "\(deep.text)")
            #expect(try await Self.line(direct, 4, 1) == [.int32(4), .int32(1), .decimal(2.5), .int32(1), .string("deep"), .null])
            let posted = try await client.send(.post, "/names/Orders(4)/Order_Details", headers: Self.json,
                                               body: #"{"Line_No": 2, "Unit_Price": "1.5"}"#)
            #expect(posted.status == .created, "\(posted.text)")
            #expect(try await Self.line(direct, 4, 2)?.prefix(3) == [.int32(4), .int32(2), .decimal(1.5)])

            // Broken relationships are named, on SQLite found by the server itself.
            let orphan = try await client.send(.post, "/names/Order_Details", headers: Self.json,
                                               body: #"{"Order_ID": 99, "Line_No": 1, "Unit_Price": "1"}"#)
            #expect(orphan.status == .conflict, "\(orphan.text)")
            let referenced = try await client.send(.delete, "/names/Orders(2)")
            #expect(referenced.status == .conflict, "\(referenced.text)")
            #expect(try await direct.rows("SELECT COUNT(*) FROM \(direct.table("Orders")) WHERE \"Order ID\" = 2", [.int64]) == [[.int64(1)]])
        }
    }

    @Test("$links set and clear the foreign key column behind the navigation", arguments: Backend.allCases)
    func links(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            func owner(_ id: Int32) async throws -> ODataValue? {
                try await direct.rows("SELECT \"Order ID\" FROM \(direct.table("2021 Sales")) WHERE \"id\" = \(bind: .int32(id))", [.int32]).first?.first
            }
            let set = try await client.send(.put, "/names/_2021_Sales(2)/$links/Orders", headers: Self.json, body: #"{"uri": "Orders(3)"}"#)
            #expect(set.status == .noContent, "\(set.text)")
            #expect(try await owner(2) == .int32(3))
            let added = try await client.send(.post, "/names/Orders(2)/$links/_2021_Sales", headers: Self.json, body: #"{"uri": "_2021_Sales(1)"}"#)
            #expect(added.status == .noContent, "\(added.text)")
            #expect(try await owner(1) == .int32(2))
            let cleared = try await client.send(.delete, "/names/_2021_Sales(1)/$links/Orders")
            #expect(cleared.status == .noContent, "\(cleared.text)")
            #expect(try await owner(1) == .null)
            let linked = try await client.get("/names/Orders(3)/$links/_2021_Sales")
            #expect(linked.entities.compactMap { $0["uri"]?.stringValue }.map { $0.hasSuffix("/names/_2021_Sales(2)") } == [true], "\(linked.text)")
        }
    }

    @Test("$batch change sets and $changes deltas write the columns behind the names", arguments: Backend.allCases)
    func batchAndChanges(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            let body = BatchBody(items: [
                .changeSet([
                    .init(method: "POST", url: "Order_Details", body: #"{"Order_ID": 2, "Line_No": 2, "Unit_Price": "5", "a_b_2": "batch"}"#),
                    .init(method: "MERGE", url: "Order_Details(Order_ID=1,Line_No=1)", body: #"{"a_b_2": "merged"}"#),
                ]),
                .query("Order_Details(Order_ID=2,Line_No=2)"),
            ])
            let response = try await client.send(.post, "/names/$batch", headers: [.contentType: body.contentType], body: body.text)
            let answer = try BatchAnswer(response)
            #expect(answer.parts.map(\.status) == [201, 204, 200], "\(response.text.prefix(500))")
            #expect(answer.parts.last?.json["d"]["a_b_2"] == .string("batch"))
            #expect(try await Self.line(direct, 2, 2)?[4] == .string("batch"))
            #expect(try await Self.line(direct, 1, 1)?[4] == .string("merged"))

            let applied = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "new", table: "Order_Details", kind: .insert,
                                key: ["Order_ID": .int32(3), "Line_No": .int32(5)],
                                values: ["Unit_Price": .decimal(6), "Qty_Ordered": .int32(7), "a_b_2": .string("delta")]),
                DataTableChange(id: "edit", table: "Order_Details", kind: .update, key: ["Order_ID": .int32(1), "Line_No": .int32(2)],
                                original: ["a_b": .string("q")], values: ["a_b": .string("edited"), "Unit_Price": .decimal(9.5)]),
                DataTableChange(id: "gone", table: "Order_Details", kind: .delete, key: ["Order_ID": .int32(2), "Line_No": .int32(1)]),
                DataTableChange(id: "sale", table: "_2021_Sales", kind: .update, key: ["id": .int32(2)], values: ["Order_ID": .int32(1)]),
            ]), service: "names")
            #expect(applied.results.allSatisfy { $0.status == .applied }, "\(applied.results.map { $0.message ?? "" })")
            #expect(applied.result("new")?.row?["a_b_2"] == .string("delta"))
            #expect(try await Self.line(direct, 3, 5) == [.int32(3), .int32(5), .decimal(6), .int32(7), .string("delta"), .null])
            #expect(try await Self.line(direct, 1, 2) == [.int32(1), .int32(2), .decimal(9.5), .int32(1), .null, .string("edited")])
            #expect(try await Self.line(direct, 2, 1) == nil)
            #expect(try await direct.rows("SELECT \"Order ID\" FROM \(direct.table("2021 Sales")) WHERE \"id\" = 2", [.int32]) == [[.int32(1)]])
        }
    }
}
