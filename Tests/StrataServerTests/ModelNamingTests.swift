import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// How ``ModelBuilder`` names what the catalog holds: database names that are not OData identifiers
/// are served under sanitized names, collisions resolved the same way whatever the catalog order,
/// and explicit names (a model file's) honoured or refused with a problem per name.
@Suite("Model naming")
struct ModelNamingTests {
    static func column(_ name: String, _ type: EDMPrimitiveType = .int32, nullable: Bool = false, exposed: String? = nil) -> CatalogColumn {
        CatalogColumn(name: name, declaredType: "INTEGER", type: type, isNullable: nullable, hasDefault: false,
                      isServerGenerated: false, exposedName: exposed)
    }

    static func table(_ name: String, _ columns: [CatalogColumn], key: [String], view: Bool = false, exposed: String? = nil,
                      foreignKeys: [CatalogForeignKey] = []) -> CatalogTable {
        CatalogTable(name: name, isView: view, columns: columns, primaryKey: key, uniqueKeys: [], foreignKeys: foreignKeys,
                     exposedName: exposed)
    }

    static func build(_ tables: [CatalogTable]) throws(ModelNamingError) -> CatalogModel {
        try ModelBuilder(serviceName: "names", namespace: "names", logger: TestDatabases.logger).build(tables)
    }

    /// `Order Details` with a composite key and a foreign key to `Orders`, a view with a space, a
    /// table whose name starts with a digit, and columns that meet after sanitizing.
    static let northwind: [CatalogTable] = [
        table("Orders", [column("Order ID"), column("Customer", .string, nullable: true)], key: ["Order ID"]),
        table("Order Details", [column("Order ID"), column("Line"), column("Unit Price", .decimal), column("a b", .string, nullable: true),
                                column("a_b", .string, nullable: true), column("a-b", .string, nullable: true)],
              key: ["Order ID", "Line"],
              foreignKeys: [CatalogForeignKey(name: nil, columns: ["Order ID"], referencedTable: "Orders", referencedColumns: ["Order ID"])]),
        table("Sales by Year", [column("Year"), column("Total", .decimal)], key: [], view: true),
        table("2021 Sales", [column("id"), column("€ amount", .decimal, nullable: true)], key: ["id"]),
    ]

    @Test("The rule: each character that cannot be in a name becomes _, a leading digit gets _ before it")
    func sanitizingRule() {
        let cases: [(String, String)] = [
            ("Order Details", "Order_Details"), ("Unit Price ($)", "Unit_Price____"), ("2021 Sales", "_2021_Sales"),
            ("a-b", "a_b"), ("a  b", "a__b"), ("Straße", "Straße"), ("Größe 2", "Größe_2"), ("", "_"), ("1", "_1"),
            ("_x", "_x"), ("x.y", "x_y"), ("naïve", "naïve"), ("emoji😀", "emoji_"), ("$value", "_value"),
        ]
        for (name, expected) in cases {
            #expect(ODataIdentifier.sanitized(name) == expected, "\(name)")
            #expect(ODataIdentifier.isValid(ODataIdentifier.sanitized(name)), "\(name)")
        }
        #expect(ODataIdentifier.isValid("Order_Details") && ODataIdentifier.isValid("Straße") && ODataIdentifier.isValid("_1"))
        #expect(!ODataIdentifier.isValid("Order Details") && !ODataIdentifier.isValid("1a") && !ODataIdentifier.isValid(""))
    }

    @Test("Every table, view and column is served; the storage names lead back to the database's")
    func everythingServed() throws {
        let built = try Self.build(Self.northwind)
        let model = built.model
        #expect(model.entitySets.map(\.name) == ["Orders", "Order_Details", "Sales_by_Year", "_2021_Sales"])
        let details = try #require(model.entityType(named: "Order_Details"))
        #expect(details.properties.map(\.name) == ["Order_ID", "Line", "Unit_Price", "a_b_2", "a_b", "a_b_3"])
        #expect(details.keyNames == ["Order_ID", "Line"])
        #expect(model.entitySet(named: "Sales_by_Year")?.isReadOnly == true)
        #expect(model.entityType(named: "_2021_Sales")?.properties.map(\.name) == ["id", "__amount"])

        let names = built.names
        #expect(names.table("Order_Details") == "Order Details")
        #expect(names.table("Orders") == "Orders")
        #expect(names.table("_2021_Sales") == "2021 Sales")
        #expect(names.column("Unit_Price", of: "Order_Details") == "Unit Price")
        #expect(names.column("a_b_2", of: "Order_Details") == "a b")
        #expect(names.column("a_b", of: "Order_Details") == "a_b")
        #expect(names.column("a_b_3", of: "Order_Details") == "a-b")
        #expect(names.column("Order_ID", of: "Orders") == "Order ID")
        #expect(names.column("Customer", of: "Orders") == "Customer")
        #expect(names.column("__amount", of: "_2021_Sales") == "€ amount")
    }

    @Test("Relationships speak property names; navigation is named after the sanitized sets")
    func relationships() throws {
        let model = try Self.build(Self.northwind).model
        let association = try #require(model.associations.first)
        #expect(association.name == "FK_Order_Details_Orders")
        #expect(association.principalColumns == ["Order_ID"] && association.dependentColumns == ["Order_ID"])
        #expect(association.dependent.entityType == "names.Order_Details")
        let toOrder = try #require(model.entityType(named: "Order_Details")?.navigationProperty(named: "Orders"))
        #expect(toOrder.joinColumns == [.init(local: "Order_ID", remote: "Order_ID")])
        #expect(toOrder.targetSet == "Orders")
        let toDetails = try #require(model.entityType(named: "Orders")?.navigationProperty(named: "Order_Details"))
        #expect(toDetails.multiplicity == .many && toDetails.targetSet == "Order_Details")
    }

    @Test("Names do not depend on the order the catalog lists tables and columns in")
    func deterministic() throws {
        let reference = try Self.build(Self.northwind)
        var tables = Self.northwind
        for round in 0..<6 {
            tables.reverse()
            if round % 2 == 1 { tables.swapAt(0, tables.count - 1) }
            let shuffled = tables.map { table in
                var table = table
                table.columns.reverse()
                return table
            }
            let built = try Self.build(shuffled)
            #expect(built.names == reference.names)
            #expect(Set(built.model.entitySets.map(\.name)) == Set(reference.model.entitySets.map(\.name)))
            let details = try #require(built.model.entityType(named: "Order_Details"))
            #expect(Set(details.properties.map(\.name)) == ["Order_ID", "Line", "Unit_Price", "a_b_2", "a_b", "a_b_3"])
            #expect(built.names.column("a_b_2", of: "Order_Details") == "a b")
        }
    }

    @Test("A name that is an identifier keeps it; sanitized names that meet it or each other take suffixes in name order")
    func tableCollisions() throws {
        let built = try Self.build([
            Self.table("x-y", [Self.column("id")], key: ["id"]),
            Self.table("x y", [Self.column("id")], key: ["id"]),
            Self.table("x_y", [Self.column("id")], key: ["id"]),
            Self.table("x_y_2", [Self.column("id")], key: ["id"]),
        ])
        // "x y" sorts before "x-y"; x_y and x_y_2 are taken by the tables named so.
        #expect(built.names.table("x_y") == "x_y")
        #expect(built.names.table("x_y_2") == "x_y_2")
        #expect(built.names.table("x_y_3") == "x y")
        #expect(built.names.table("x_y_4") == "x-y")
        #expect(built.model.entitySets.map(\.name) == ["x_y_4", "x_y_3", "x_y", "x_y_2"])
    }

    @Test("Navigation names that sanitizing brings together are told apart")
    func navigationCollisions() throws {
        // The referenced sets are a_b and a_b_2 ("a b" meets a_b); Child has properties named like
        // the navigation to a_b_2 and like its first disambiguation.
        let built = try Self.build([
            Self.table("a b", [Self.column("id")], key: ["id"]),
            Self.table("a_b", [Self.column("id")], key: ["id"]),
            Self.table("Child", [Self.column("id"), Self.column("one"), Self.column("two"), Self.column("a_b_2"), Self.column("a_b_2_two")],
                       key: ["id"],
                       foreignKeys: [CatalogForeignKey(name: nil, columns: ["one"], referencedTable: "a_b", referencedColumns: ["id"]),
                                     CatalogForeignKey(name: nil, columns: ["two"], referencedTable: "a b", referencedColumns: ["id"])]),
        ])
        let child = try #require(built.model.entityType(named: "Child"))
        let names = child.navigationProperties.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(names).isDisjoint(with: child.properties.map(\.name)))
        #expect(child.navigationProperties.first { $0.targetSet == "a_b" }?.name == "a_b")
        #expect(child.navigationProperties.first { $0.targetSet == "a_b_2" }?.name == "a_b_2_two_2")
        #expect(built.model.entityType(named: "a_b_2")?.navigationProperties.map(\.name) == ["Child"])
    }

    @Test("Explicit names are honoured on sets, properties and both ends of a relationship")
    func explicitNames() throws {
        var tables = Self.northwind
        tables[0].exposedName = "Order"
        tables[1].exposedName = "OrderLine"
        tables[1].columns[2].exposedName = "UnitPrice"
        tables[1].columns[4].exposedName = "ab"
        tables[1].foreignKeys[0].navigationName = "Order"
        tables[1].foreignKeys[0].reverseNavigationName = "Lines"
        let built = try Self.build(tables)
        let model = built.model
        #expect(model.entitySets.map(\.name) == ["Order", "OrderLine", "Sales_by_Year", "_2021_Sales"])
        let line = try #require(model.entityType(named: "OrderLine"))
        // `a_b` is free once the column named so is called `ab`: `a b` and `a-b` take a_b and a_b_2.
        #expect(line.properties.map(\.name) == ["Order_ID", "Line", "UnitPrice", "a_b", "ab", "a_b_2"])
        #expect(line.navigationProperties.map(\.name) == ["Order"])
        #expect(model.entityType(named: "Order")?.navigationProperties.map(\.name) == ["Lines"])
        #expect(model.entityType(named: "Order")?.navigationProperties.first?.targetSet == "OrderLine")
        #expect(built.names.table("Order") == "Orders" && built.names.table("OrderLine") == "Order Details")
        #expect(built.names.column("UnitPrice", of: "OrderLine") == "Unit Price")
        #expect(built.names.column("ab", of: "OrderLine") == "a_b")
        #expect(built.names.column("a_b", of: "OrderLine") == "a b")
    }

    @Test("Two tables may swap names; an explicit name takes precedence over a sanitized one")
    func explicitPrecedence() throws {
        var tables = [Self.table("A", [Self.column("id")], key: ["id"]), Self.table("B", [Self.column("id")], key: ["id"]),
                      Self.table("C D", [Self.column("id")], key: ["id"]), Self.table("E", [Self.column("id")], key: ["id"])]
        tables[0].exposedName = "B"
        tables[1].exposedName = "A"
        tables[3].exposedName = "C_D"
        let names = try Self.build(tables).names
        #expect(names.table("A") == "B" && names.table("B") == "A")
        #expect(names.table("C_D") == "E" && names.table("C_D_2") == "C D")
    }

    @Test("Explicit names that are not identifiers or collide are all reported, naming what is wrong")
    func explicitProblems() throws {
        var tables = Self.northwind
        tables[0].exposedName = "Bad Name"
        tables[2].exposedName = "_2021_Sales"  // taken by nothing explicit, but…
        tables[3].exposedName = "_2021_Sales"  // …two explicit names are the same
        tables[1].columns[0].exposedName = "Line"  // the name of another column
        tables[1].columns[2].exposedName = "1price"
        tables[1].foreignKeys[0].navigationName = "a_b"  // a property of Order_Details
        tables[1].foreignKeys[0].reverseNavigationName = "has space"
        do {
            _ = try Self.build(tables)
            Issue.record("explicit names that cannot be served were accepted")
        } catch {
            let subjects = error.problems.map(\.subject)
            #expect(subjects.contains(.table("Orders")))
            #expect(subjects.contains(.table("2021 Sales")) || subjects.contains(.table("Sales by Year")))
            #expect(subjects.contains(.column(table: "Order Details", column: "Order ID")))
            #expect(subjects.contains(.column(table: "Order Details", column: "Unit Price")))
            #expect(subjects.contains(.navigation(table: "Order Details", columns: ["Order ID"], reverse: false)))
            #expect(subjects.contains(.navigation(table: "Order Details", columns: ["Order ID"], reverse: true)))
            #expect(error.problems.count == 6, "\(error)")
            #expect(error.description.contains("'Bad Name' is not an OData name"), "\(error)")
            #expect(error.description.contains("'Line' is the name of the column Line"), "\(error)")
        }
    }

    @Test("A service whose names are all identifiers maps nothing")
    func identityWhenValid() throws {
        let built = try Self.build([Self.table("Person", [Self.column("personID"), Self.column("name", .string)], key: ["personID"])])
        #expect(built.names.isEmpty)
        #expect(built.names == StorageNames())
    }
}
