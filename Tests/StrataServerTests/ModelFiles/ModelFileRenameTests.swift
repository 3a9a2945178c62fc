import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// A Northwind-shaped service made by plain SQL, served under the names an app written against
/// Northwind's own OData service expects, by its model file: renamed sets, properties and
/// navigation properties, through reads, writes, `$expand`, `$filter` and `$orderby`.
@Suite("Model files: renames")
struct ModelFileRenameTests {
    static let northwind = TestService(name: "northwind") { backend in
        let real = backend == .postgres ? "NUMERIC(10,4)" : "REAL"
        return ["""
            CREATE TABLE "Customers" ("CustomerID" CHAR(5) PRIMARY KEY, "CompanyName" VARCHAR(40) NOT NULL);
            CREATE TABLE "Categories" ("CategoryID" INTEGER PRIMARY KEY, "CategoryName" VARCHAR(15) NOT NULL);
            CREATE TABLE "Products" ("ProductID" INTEGER PRIMARY KEY, "ProductName" VARCHAR(40) NOT NULL,
                                     "CategoryID" INTEGER REFERENCES "Categories"("CategoryID"));
            CREATE TABLE "Employees" ("EmployeeID" INTEGER PRIMARY KEY, "LastName" VARCHAR(20) NOT NULL,
                                      "ReportsTo" INTEGER REFERENCES "Employees"("EmployeeID"));
            CREATE TABLE "Orders" ("OrderID" INTEGER PRIMARY KEY, "CustomerID" CHAR(5) REFERENCES "Customers"("CustomerID"));
            CREATE TABLE "Order Details" ("OrderID" INTEGER NOT NULL REFERENCES "Orders"("OrderID"),
                                          "ProductID" INTEGER NOT NULL REFERENCES "Products"("ProductID"),
                                          "Unit Price" \(real) NOT NULL, "Quantity" INTEGER NOT NULL,
                                          PRIMARY KEY ("OrderID", "ProductID"));
            INSERT INTO "Customers" VALUES ('ALFKI', 'Alfreds Futterkiste'), ('ANATR', 'Ana Trujillo Emparedados');
            INSERT INTO "Categories" VALUES (1, 'Beverages'), (2, 'Condiments');
            INSERT INTO "Products" VALUES (1, 'Chai', 1), (2, 'Chang', 1), (3, 'Aniseed Syrup', 2);
            INSERT INTO "Employees" VALUES (2, 'Fuller', NULL), (1, 'Davolio', 2), (3, 'Leverling', 2), (5, 'Buchanan', 2), (6, 'Suyama', 5);
            INSERT INTO "Orders" VALUES (10643, 'ALFKI'), (10692, 'ALFKI'), (10308, 'ANATR');
            INSERT INTO "Order Details" VALUES (10643, 1, 18, 15), (10643, 3, 10, 2), (10692, 2, 19, 20), (10308, 1, 18, 1);
            """]
    }

    static let modelFile = """
        tables:
          Categories:
            name: ProductCategories
          Employees:
            relationships:
              - columns: [ReportsTo]
                references: Employees
                name: Manager
                reverseName: Reports
          Customers:
            columns:
              CompanyName: { name: Company }
          Orders:
            relationships:
              - columns: [CustomerID]
                references: Customers
                name: Customer
                reverseName: Orders
          Products:
            relationships:
              - columns: [CategoryID]
                references: Categories
                name: Category
                reverseName: Products
          Order Details:
            name: Order_Details
            columns:
              Unit Price: { name: UnitPrice }
            relationships:
              - columns: [OrderID]
                references: Orders
                name: Order
                reverseName: Order_Details
              - columns: [ProductID]
                references: Products
                name: Product
                reverseName: Order_Details

        """

    static let json: HTTPFields = [.contentType: "application/json"]

    @Test("Northwind's own names: Orders(10643)/Customer, Products(1)/Category, $expand=Orders/Order_Details",
          arguments: Backend.allCases)
    func northwindNames(_ backend: Backend) async throws {
        try await withServer(backend, services: [Self.northwind], configure: { configuration in
            let url = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("northwind.model.yaml")
            try? Self.modelFile.write(to: url, atomically: true, encoding: .utf8)
        }) { client in
            let customer = try await client.get("/northwind/Orders(10643)/Customer")
            #expect(customer.json["d"]["CustomerID"]?.stringValue == "ALFKI", "\(customer.text)")
            #expect(customer.json["d"]["Company"]?.stringValue == "Alfreds Futterkiste")
            let category = try await client.get("/northwind/Products(1)/Category")
            #expect(category.json["d"]["CategoryName"]?.stringValue == "Beverages", "\(category.text)")
            #expect(try await client.get("/northwind/ProductCategories(2)/Products/$count").text == "1")
            #expect(try await client.get("/northwind/Categories(1)").status == .notFound)

            let expanded = try await client.get("/northwind/Customers('ALFKI')?$expand=Orders/Order_Details")
            let orders = expanded.json["d"]["Orders"]["results"]?.arrayValue ?? []
            #expect(orders.compactMap { $0["OrderID"]?.intValue }.sorted() == [10643, 10692], "\(expanded.text.prefix(300))")
            let lines = orders.flatMap { $0["Order_Details"]["results"]?.arrayValue ?? [] }
            #expect(lines.count == 3)
            #expect(lines.compactMap { $0["UnitPrice"]?.doubleValue }.sorted() == [10, 18, 19])

            let filtered = try await client.get("/northwind/Customers?$filter=startswith(Company,'Ana')&$orderby=Company%20desc&$select=CustomerID")
            #expect(filtered.json["d"]["results"]?.arrayValue?.compactMap { $0["CustomerID"]?.stringValue } == ["ANATR"], "\(filtered.text)")
            let pricey = try await client.get("/northwind/Order_Details?$filter=UnitPrice%20gt%2018&$select=ProductID")
            #expect(pricey.json["d"]["results"]?.arrayValue?.compactMap { $0["ProductID"]?.intValue } == [2], "\(pricey.text)")
            let line = try await client.get("/northwind/Order_Details(OrderID=10643,ProductID=3)/Product")
            #expect(line.json["d"]["ProductName"]?.stringValue == "Aniseed Syrup", "\(line.text)")

            let created = try await client.send(.post, "/northwind/Customers", headers: Self.json,
                                                body: #"{"CustomerID":"BONAP","Company":"Bon app'"}"#)
            #expect(created.status == .created, "\(created.text)")
            let changed = try await client.send(HTTPRequest.Method("MERGE")!, "/northwind/Customers('BONAP')", headers: Self.json,
                                                body: #"{"Company":"Bon app"}"#)
            #expect(changed.status == .noContent, "\(changed.text)")
            #expect(try await client.get("/northwind/Customers('BONAP')/Company/$value").text == "Bon app")
            let unknown = try await client.send(.post, "/northwind/Customers", headers: Self.json,
                                                body: #"{"CustomerID":"XXXXX","CompanyName":"old name"}"#)
            #expect(unknown.status == .badRequest, "\(unknown.text)")

            // A self-reference, named both ways.
            let manager = try await client.get("/northwind/Employees(6)/Manager")
            #expect(manager.json["d"]["LastName"]?.stringValue == "Buchanan", "\(manager.text)")
            let reports = try await client.get("/northwind/Employees(2)/Reports?$orderby=EmployeeID&$select=EmployeeID")
            #expect(reports.json["d"]["results"]?.arrayValue?.compactMap { $0["EmployeeID"]?.intValue } == [1, 3, 5], "\(reports.text)")
            let chain = try await client.get("/northwind/Employees(6)?$expand=Manager/Manager&$select=LastName,Manager/LastName,Manager/Manager/LastName")
            #expect(chain.json["d"]["Manager"]["Manager"]["LastName"]?.stringValue == "Fuller", "\(chain.text)")

            let metadata = try await client.get("/northwind/$metadata")
            for name in ["Name=\"Customer\"", "Name=\"Category\"", "Name=\"Order_Details\"", "Name=\"UnitPrice\"", "Name=\"Company\""] {
                #expect(metadata.text.contains(name), "\(name)")
            }
        }
    }
}
