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

/// Tables, views and columns whose names are not OData identifiers are served under sanitized names
/// through every path, and every answer is the one the database gives to the same question asked
/// directly by its own names.
@Suite("Names that are not identifiers")
struct NameMappingTests {
    static let details = NamesService.detailProperties
    static let columns = NamesService.detailColumns

    @Test("$metadata names every table, view and column, sanitized and told apart", arguments: Backend.allCases)
    func metadata(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, _ in
            let metadata = try await client.get("/names/$metadata").text
            for name in ["EntitySet Name=\"Order_Details\"", "EntitySet Name=\"Orders\"", "EntitySet Name=\"Big_Orders\"",
                         "EntitySet Name=\"_2021_Sales\"", "Property Name=\"Unit_Price\"", "Property Name=\"Qty_Ordered\"",
                         "Property Name=\"a_b_2\"", "Property Name=\"a_b\"", "Property Name=\"Customer_Name\"",
                         "NavigationProperty Name=\"Order_Details\"", "NavigationProperty Name=\"Orders\"",
                         "NavigationProperty Name=\"_2021_Sales\"", "PropertyRef Name=\"Order_ID\"", "PropertyRef Name=\"Line_No\""] {
                #expect(metadata.contains(name), "\(name)")
            }
            #expect(!metadata.contains("Order Details") && !metadata.contains("Unit Price") && !metadata.contains("\"a b\""))
            let root = try await client.get("/names/").text
            #expect(root.contains("Order_Details") && root.contains("Big_Orders") && root.contains("_2021_Sales"))
        }
    }

    @Test("Collections, keys, $filter, $orderby, $select, $count, navigation and $links answer as the database does", arguments: Backend.allCases)
    func reads(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            let table = direct.table("Order Details")
            let types = NamesService.detailTypes
            func compare(_ uri: String, _ sql: SQL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let response = try await client.get(uri)
                #expect(response.status == .ok, "\(uri): \(response.text.prefix(300))", sourceLocation: sourceLocation)
                let expected = try await direct.rows(sql, types)
                #expect(!expected.isEmpty, "\(uri): the database answers nothing", sourceLocation: sourceLocation)
                #expect(typedRows(response.entities, Self.details) == expected, "\(uri)", sourceLocation: sourceLocation)
            }
            try await compare("/names/Order_Details", "SELECT \(Self.columns) FROM \(table) ORDER BY \"Order ID\", \"Line No\"")
            try await compare("/names/Order_Details?$filter=Unit_Price%20gt%2010%20and%20a_b_2%20eq%20'x'",
                              "SELECT \(Self.columns) FROM \(table) WHERE \"Unit Price\" > 10 AND \"a b\" = 'x' ORDER BY \"Order ID\", \"Line No\"")
            try await compare("/names/Order_Details?$orderby=Unit_Price%20desc",
                              "SELECT \(Self.columns) FROM \(table) ORDER BY \"Unit Price\" DESC")
            try await compare("/names/Order_Details?$filter=Orders/Customer_Name%20eq%20'Ann'%20or%20a_b%20eq%20null",
                              """
                              SELECT \(Self.columns) FROM \(table) WHERE "Order ID" IN (SELECT "Order ID" FROM \(direct.table("Orders")) \
                              WHERE "Customer Name" = 'Ann') OR "a_b" IS NULL ORDER BY "Order ID", "Line No"
                              """)
            try await compare("/names/Orders(1)/Order_Details", "SELECT \(Self.columns) FROM \(table) WHERE \"Order ID\" = 1 ORDER BY \"Line No\"")
            let single = try await client.get("/names/Order_Details(Order_ID=1,Line_No=2)")
            #expect(typedRows([single.json["d"] ?? .null], Self.details)
                    == (try await direct.rows("SELECT \(Self.columns) FROM \(table) WHERE \"Order ID\" = 1 AND \"Line No\" = 2", types)))
            #expect(single.json["d"]["__metadata"]["uri"]?.stringValue?.hasSuffix("/names/Order_Details(Order_ID=1,Line_No=2)") == true)
            let property = try await client.get("/names/Order_Details(Order_ID=3,Line_No=1)/a_b_2/$value")
            #expect(property.text == "x")

            let selected = try await client.get("/names/Order_Details?$select=Unit_Price,a_b_2&$orderby=Qty_Ordered")
            #expect(typedRows(selected.entities, [("Unit_Price", .decimal), ("a_b_2", .string)])
                    == (try await direct.rows("SELECT \"Unit Price\", \"a b\" FROM \(table) ORDER BY \"Qty Ordered\"", [.decimal, .string])))
            #expect(selected.entities.first?["Qty_Ordered"] == nil)

            let count = try await client.get("/names/Order_Details/$count?$filter=Qty_Ordered%20ge%202").text
            let counted = try await direct.rows("SELECT COUNT(*) FROM \(table) WHERE \"Qty Ordered\" >= 2", [.int64])
            #expect(count == counted.first?.first?.integerValue.map(String.init))
            #expect(try await client.get("/names/Orders(1)/Order_Details/$count").text == "2")

            let links = try await client.get("/names/Orders(1)/$links/Order_Details")
            let uris = links.entities.compactMap { $0["uri"]?.stringValue }
            #expect(uris.count == 2 && uris.allSatisfy { $0.contains("/names/Order_Details(Order_ID=1,Line_No=") }, "\(links.text)")

            let owner = try await client.get("/names/Order_Details(Order_ID=3,Line_No=1)/Orders")
            #expect(owner.json["d"]["Customer_Name"] == .string("Cy"))

            let view = try await client.get("/names/Big_Orders?$orderby=Order_ID")
            #expect(typedRows(view.entities, [("Order_ID", .int32), ("Customer_Name", .string)])
                    == (try await direct.rows("SELECT \"Order ID\", \"Customer Name\" FROM \(direct.table("Big Orders")) ORDER BY \"Order ID\"", [.int32, .string])))
            let sales = try await client.get("/names/_2021_Sales?$filter=amount%20gt%20150")
            #expect(typedRows(sales.entities, [("id", .int32), ("amount", .int32), ("Order_ID", .int32)])
                    == (try await direct.rows("SELECT \"id\", \"amount\", \"Order ID\" FROM \(direct.table("2021 Sales")) WHERE \"amount\" > 150", [.int32, .int32, .int32])))
        }
    }

    @Test("Pages follow __next through sort keys on the columns behind the names", arguments: Backend.allCases)
    func paging(_ backend: Backend) async throws {
        try await withNamesServer(backend, pageSize: 1) { client, direct in
            var next: String? = "/names/Order_Details?$orderby=a_b_2%20desc,Unit_Price&$inlinecount=allpages"
            var entities: [JSONValue] = []
            var pages = 0
            while let uri = next, pages < 10 {
                let page = try await client.get(uri)
                #expect(page.status == .ok, "\(uri): \(page.text.prefix(300))")
                if pages == 0 { #expect(page.json["d"]["__count"] == .string("4")) }
                entities += page.entities
                next = page.json["d"]["__next"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) }
                pages += 1
            }
            #expect(pages == 4)
            // OData orders nulls first ascending, so last descending.
            let expected = try await direct.rows("""
                SELECT \(Self.columns) FROM \(direct.table("Order Details")) \
                ORDER BY CASE WHEN "a b" IS NULL THEN 1 ELSE 0 END, "a b" DESC, "Unit Price", "Order ID", "Line No"
                """, NamesService.detailTypes)
            #expect(typedRows(entities, Self.details) == expected)
        }
    }

    @Test("$expand both ways joins on the columns behind the names", arguments: Backend.allCases)
    func expand(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            let orders = try await client.get("/names/Orders?$expand=Order_Details,_2021_Sales&$orderby=Order_ID")
            #expect(orders.status == .ok, "\(orders.text.prefix(300))")
            let perOrder = try await direct.rows("""
                SELECT o."Order ID", (SELECT COUNT(*) FROM \(direct.table("Order Details")) d WHERE d."Order ID" = o."Order ID"), \
                (SELECT COUNT(*) FROM \(direct.table("2021 Sales")) s WHERE s."Order ID" = o."Order ID") \
                FROM \(direct.table("Orders")) o ORDER BY o."Order ID"
                """, [.int32, .int64, .int64])
            let answered = orders.entities.map { order -> [ODataValue] in
                [order["Order_ID"].flatMap { try? ODataJSON.decode($0, as: .int32) } ?? .null,
                 .int64(Int64(order["Order_Details"]["results"]?.arrayValue?.count ?? order["Order_Details"]?.arrayValue?.count ?? -1)),
                 .int64(Int64(order["_2021_Sales"]["results"]?.arrayValue?.count ?? order["_2021_Sales"]?.arrayValue?.count ?? -1))]
            }
            #expect(answered == perOrder)
            let lines = orders.entities.first?["Order_Details"]["results"]?.arrayValue ?? orders.entities.first?["Order_Details"]?.arrayValue ?? []
            #expect(typedRows(lines, Self.details)
                    == (try await direct.rows("SELECT \(Self.columns) FROM \(direct.table("Order Details")) WHERE \"Order ID\" = 1 ORDER BY \"Line No\"",
                                              NamesService.detailTypes)))

            let details = try await client.get("/names/Order_Details?$expand=Orders&$orderby=Unit_Price")
            let customers = details.entities.map { $0["Orders"]["Customer_Name"]?.stringValue ?? "missing" }
            let expected = try await direct.rows("""
                SELECT o."Customer Name" FROM \(direct.table("Order Details")) d JOIN \(direct.table("Orders")) o ON o."Order ID" = d."Order ID" \
                ORDER BY d."Unit Price"
                """, [.string])
            #expect(customers == expected.map { $0[0].stringValue ?? "" })
        }
    }

    @Test("$tables and $sql read and describe the tables by their OData names, and $sql takes the database's quoted", arguments: Backend.allCases)
    func dataTables(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            let table = direct.table("Order Details")
            let whole = try #require(try await client.tables("/names/$tables/Order_Details").first)
            #expect(whole.name == "Order_Details")
            #expect(whole.fields.map(\.name) == Self.details.map(\.0))
            #expect(whole.fields.filter(\.key).map(\.name) == ["Order_ID", "Line_No"])
            #expect(whole.rows == (try await direct.rows("SELECT \(Self.columns) FROM \(table) ORDER BY \"Order ID\", \"Line No\"", NamesService.detailTypes)))
            let narrowed = try #require(try await client.tables("/names/$tables/Order_Details?$filter=a_b_2%20eq%20'x'&$select=Unit_Price").first)
            #expect(narrowed.column("Unit_Price")
                    == (try await direct.rows("SELECT \"Unit Price\" FROM \(table) WHERE \"a b\" = 'x' ORDER BY \"Order ID\", \"Line No\"", [.decimal])).map { $0[0] })
            let several = try await client.tables("/names/$tables?names=_2021_Sales,Big_Orders")
            #expect(several.map(\.name) == ["_2021_Sales", "Big_Orders"])
            #expect(several.first?.rows.count == 2)

            let queries: [(String, SQL, [EDMPrimitiveType?], [String])] = [
                (#"SELECT "Unit Price", "a b", a_b FROM "Order Details" WHERE "Order ID" = 1 ORDER BY "Line No""#,
                 "SELECT \"Unit Price\", \"a b\", \"a_b\" FROM \(table) WHERE \"Order ID\" = 1 ORDER BY \"Line No\"",
                 [.decimal, .string, .string], ["Unit_Price", "a_b_2", "a_b"]),
                ("SELECT Unit_Price AS price, a_b_2 FROM Order_Details WHERE Qty_Ordered > 1 ORDER BY Unit_Price",
                 "SELECT \"Unit Price\", \"a b\" FROM \(table) WHERE \"Qty Ordered\" > 1 ORDER BY \"Unit Price\"",
                 [.decimal, .string], ["price", "a_b_2"]),
                (#"SELECT o."Customer Name", SUM(d."Unit Price" * d."Qty Ordered") AS total FROM "Order Details" d JOIN Orders o ON o.Order_ID = d."Order ID" GROUP BY o."Customer Name" ORDER BY 1"#,
                 "SELECT o.\"Customer Name\", SUM(d.\"Unit Price\" * d.\"Qty Ordered\") FROM \(table) d JOIN \(direct.table("Orders")) o ON o.\"Order ID\" = d.\"Order ID\" GROUP BY o.\"Customer Name\" ORDER BY 1",
                 [.string, .decimal], ["Customer_Name", "total"]),
                (#"SELECT "Order Details"."Line No" FROM "Order Details" WHERE "Order Details".a_b_2 IS NULL"#,
                 "SELECT \"Line No\" FROM \(table) WHERE \"a b\" IS NULL", [.int32], ["Line_No"]),
                (#"SELECT * FROM "2021 Sales" ORDER BY id"#, "SELECT \"id\", \"amount\", \"Order ID\" FROM \(direct.table("2021 Sales")) ORDER BY \"id\"",
                 [.int32, .int32, .int32], ["id", "amount", "Order_ID"]),
                (#"SELECT "Customer Name" FROM "Big Orders" ORDER BY 1"#, "SELECT \"Customer Name\" FROM \(direct.table("Big Orders")) ORDER BY 1",
                 [.string], ["Customer_Name"]),
                // Tables combined row by row: the cross-join check counts the tables by their database names.
                (#"SELECT COUNT(*) AS n FROM "Order Details" d JOIN Orders o ON 1 = 1"#,
                 "SELECT COUNT(*) FROM \(table) CROSS JOIN \(direct.table("Orders"))", [.int64], ["n"]),
            ]
            for (sql, directSQL, types, names) in queries {
                let response = try await client.sql(sql, service: "names")
                #expect(response.status == .ok, "\(sql): \(response.text.prefix(300))")
                let answer = try #require(try CompactTable.decode(Array(response.body.readableBytesView)).first)
                #expect(answer.fields.map(\.name) == names, "\(sql)")
                let expected = try await direct.rows(directSQL, types)
                #expect(!expected.isEmpty)
                let converted = answer.rows.map { row in zip(row, types).map { value, type in type.flatMap { value.converted(to: $0) } ?? value } }
                #expect(converted == expected, "\(sql)")
            }
            // A result of one table with its key, named by the OData names, describes editable fields.
            let editable = try await client.sql(#"SELECT "Order ID", "Line No", "Unit Price" FROM "Order Details""#, service: "names")
            let fields = try #require(try CompactTable.decode(Array(editable.body.readableBytesView)).first).fields
            #expect(fields.map(\.key) == [true, true, false] && !fields[2].readOnly)

            let unknown = try await client.sql("SELECT * FROM [Order Details]", service: "names")
            #expect(unknown.status == .badRequest)
            let missing = try await client.sql(#"SELECT * FROM "order details""#, service: "names")
            #expect(missing.status == .badRequest && missing.text.contains("Order_Details"), "\(missing.text)")
        }
    }

    @Test("A grant's row filter in OData names narrows every read path", arguments: Backend.allCases)
    func rowFilters(_ backend: Backend) async throws {
        try await withNamesServer(backend) { client, direct in
            let json: HTTPFields = [.contentType: "application/json"]
            #expect(try await client.send(.put, "/admin/access", headers: json, body: #"{"service":"names","anonymous":"none"}"#).status == .noContent)
            #expect(try await client.send(.post, "/admin/users", headers: json,
                                          body: #"{"username":"clerk","password":"pw-clerk","roles":["clerk"]}"#).status == .created)
            let grant = #"{"role":"clerk","service":"names","table":"Order_Details","actions":["read"],"filter":"Unit_Price gt 10 or Orders/Customer_Name eq 'Cy'"}"#
            let granted = try await client.send(.post, "/admin/grants", headers: json, body: grant)
            #expect(granted.status == .noContent, "\(granted.text)")
            #expect(try await client.send(.post, "/admin/grants", headers: json,
                                          body: #"{"role":"clerk","service":"names","table":"Orders","actions":["read"]}"#).status == .noContent)
            let clerk = basic("clerk", "pw-clerk")
            let expected = try await direct.rows("""
                SELECT \(Self.columns) FROM \(direct.table("Order Details")) d WHERE "Unit Price" > 10 \
                OR EXISTS (SELECT 1 FROM \(direct.table("Orders")) o WHERE o."Order ID" = d."Order ID" AND o."Customer Name" = 'Cy') \
                ORDER BY "Order ID", "Line No"
                """, NamesService.detailTypes)
            #expect(expected.count == 3)
            let read = try await client.get("/names/Order_Details", headers: clerk)
            #expect(read.status == .ok, "\(read.text.prefix(300))")
            #expect(typedRows(read.entities, Self.details) == expected)
            let expanded = try await client.get("/names/Orders?$expand=Order_Details&$orderby=Order_ID", headers: clerk)
            let lines = expanded.entities.flatMap { $0["Order_Details"]["results"]?.arrayValue ?? $0["Order_Details"]?.arrayValue ?? [] }
            #expect(typedRows(lines, Self.details) == expected)
            let tables = try await client.send(.get, "/names/$tables/Order_Details", headers: clerk)
            #expect(try CompactTable.decode(Array(tables.body.readableBytesView)).first?.rows == expected)
            let sql = try await client.send(.post, "/names/$sql", headers: clerk + json,
                                            body: #"{"sql":"SELECT \"Order ID\", \"Line No\" FROM \"Order Details\" ORDER BY 1, 2"}"#)
            #expect(try CompactTable.decode(Array(sql.body.readableBytesView)).first?.rows.map { Array($0.prefix(2)) }
                    == expected.map { Array($0.prefix(2)) }, "\(sql.text.prefix(300))")
        }
    }
}
