import Foundation
import StrataCore
import StrataSQL
import Testing

/// Tables and columns whose database names are not OData identifiers: a query may use either name,
/// quoted as standard SQL quotes; the emitted SQL uses the database's, the result the catalog's.
@Suite struct SQLStoredNameTests {
    static let catalog = SQLCatalog(tables: [
        .init(name: "Orders", columns: [
            .init(name: "Order_ID", storedName: "Order ID", type: .int32, isNullable: false), .init(name: "Customer", type: .string),
        ]),
        .init(name: "Order_Details", storedName: "Order Details", columns: [
            .init(name: "Order_ID", storedName: "Order ID", type: .int32, isNullable: false),
            .init(name: "Unit_Price", storedName: "Unit Price", type: .decimal),
            .init(name: "a_b", type: .string), .init(name: "a_b_2", storedName: "a b", type: .string),
        ]),
    ])

    static func emit(_ sql: String) throws(ODataError) -> (SQLCheckedStatement, String) {
        let checked = try ClientSQL.check(sql, catalog: catalog)
        return (checked, try checked.emit(for: .sqlite).sql)
    }

    @Test func databaseNamesQuotedAndODataNamesAlike() throws {
        let expected = #"SELECT "t1"."Unit Price" AS "c1", "t1"."a b" AS "c2", "t1"."a_b" AS "c3" FROM "Order Details" AS "t1" WHERE "t1"."Order ID" = ?"#
        for sql in [#"SELECT "Unit Price", "a b", a_b FROM "Order Details" WHERE "Order ID" = 1"#,
                    #"SELECT Unit_Price, a_b_2, "a_b" FROM Order_Details WHERE Order_ID = 1"#,
                    #"select unit_price, A_B_2, a_b from order_details where "Order ID" = 1"#,
                    #"SELECT "Order Details"."Unit Price", "Order Details".a_b_2, a_b FROM "Order Details" WHERE "Order Details"."Order ID" = 1"#,
                    #"SELECT d."Unit Price", d."a b", d.a_b FROM "Order Details" d WHERE d.Order_ID = 1"#] {
            let (checked, emitted) = try Self.emit(sql)
            #expect(emitted == expected, "\(sql)")
            // Results carry the catalog's (OData) names, however the query spelled them.
            #expect(checked.columns.map(\.name) == ["Unit_Price", "a_b_2", "a_b"], "\(sql)")
            #expect(checked.columns[0].source == .init(table: "Order_Details", column: "Unit_Price"))
            #expect(checked.tables.map(\.table) == ["Order_Details"] && checked.tables[0].storedName == "Order Details")
        }
    }

    @Test func starAndJoinsUseDatabaseNames() throws {
        let (checked, emitted) = try Self.emit(#"SELECT o.*, "Order Details"."Unit Price" FROM Orders o JOIN "Order Details" ON "Order Details"."Order ID" = o."Order ID""#)
        #expect(emitted == #"SELECT "t1"."Order ID" AS "c1", "t1"."Customer" AS "c2", "t2"."Unit Price" AS "c3" FROM "Orders" AS "t1" INNER JOIN "Order Details" AS "t2" ON "t2"."Order ID" = "t1"."Order ID""#)
        #expect(checked.columns.map(\.name) == ["Order_ID", "Customer", "Unit_Price"])
    }

    @Test func quotedNamesMatchExactlyAndAnAliasHidesTheTableName() {
        // A quoted name is the exact spelling of one name or the other.
        #expect(refused(#"SELECT "unit price" FROM "Order Details""#)?.message.contains("unknown column") == true)
        #expect(refused(#"SELECT * FROM "order details""#)?.message.contains("unknown table") == true)
        // Square brackets are not SQL.
        #expect(refused("SELECT * FROM [Order Details]") != nil)
        // With an alias, the table's names no longer qualify.
        #expect(refused(#"SELECT "Order Details"."Unit Price" FROM "Order Details" d"#)?.message.contains("not a name in this query") == true)
    }

    private func refused(_ sql: String) -> ODataError? {
        do {
            _ = try ClientSQL.check(sql, catalog: Self.catalog)
            Issue.record("accepted: \(sql)")
            return nil
        } catch {
            return error
        }
    }
}
