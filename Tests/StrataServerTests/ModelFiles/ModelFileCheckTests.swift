import Logging
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// Reading and checking model files without a database: every mistake is an error naming the
/// file, the line and what to do, and a file printed from a model reads back to the same model.
@Suite("Model files: reading and checking")
struct ModelFileCheckTests {
    static let catalog = [
        CatalogTable(name: "Order Details", isView: false, columns: [
            column("OrderID", .int32, nullable: false), column("ProductID", .int32, nullable: false),
            column("Unit Price", .decimal), column("note", .string),
        ], primaryKey: ["OrderID", "ProductID"], uniqueKeys: [],
        foreignKeys: [CatalogForeignKey(name: nil, columns: ["OrderID"], referencedTable: "Orders", referencedColumns: ["OrderID"])]),
        CatalogTable(name: "Orders", isView: false, columns: [
            column("OrderID", .int32, nullable: false), column("OrderDate", .string), column("Shipped", .int32),
        ], primaryKey: ["OrderID"], uniqueKeys: [], foreignKeys: []),
        CatalogTable(name: "Invoices", isView: true, columns: [
            column("OrderID", .int32), column("Amount", .double), column("Stamp", .binary),
        ], primaryKey: [], uniqueKeys: [], foreignKeys: []),
    ]

    static func column(_ name: String, _ type: EDMPrimitiveType, nullable: Bool = true) -> CatalogColumn {
        CatalogColumn(name: name, declaredType: type.rawValue, type: type, isNullable: nullable, hasDefault: false, isServerGenerated: false)
    }

    static func check(_ yaml: String, dialect: SQLDialect = .sqlite) throws -> [CatalogTable] {
        try ModelFile(yaml: yaml, path: "shop.model.yaml").apply(to: catalog, dialect: dialect)
    }

    @Test("Each mistake is refused at its line with what to fix", arguments: [
        ("tables:\n  Orders:\n    colums: {}\n", 3, "has no setting 'colums'"),
        ("tables:\n  Orders\n  : x: [\n", 3, "not valid YAML"),
        ("namespace: 1bad\n", 1, "not an OData identifier"),
        ("maxProtocolVersion: 3.0\n", 1, "1.0 or 2.0"),
        ("tables:\n  Order:\n    name: O\n", 2, "no table or view named 'Order'"),
        ("tables:\n  Orders:\n    columns:\n      OrderDat: { hidden: true }\n", 4, "no column 'OrderDat'"),
        ("tables:\n  Orders:\n    columns:\n      OrderDate: { type: Edm.Date }\n", 4, "not an EDM type"),
        ("tables:\n  Orders:\n    columns:\n      OrderID: { hidden: true }\n", 4, "part of the key"),
        ("tables:\n  Order Details:\n    columns:\n      OrderID:\n        hidden: true\n", 5, "part of the key"),
        ("tables:\n  Orders:\n    key: [OrderDate]\n", 3, "has a primary key"),
        ("tables:\n  Invoices:\n    key: [Amount, Nope]\n", 3, "names 'Nope'"),
        ("tables:\n  Invoices:\n    key: [Amount]\n", 3, "cannot be part of a key"),
        ("tables:\n  Invoices:\n    relationships:\n      - columns: [OrderID]\n        references: Order\n", 4, "references 'Order'"),
        ("tables:\n  Invoices:\n    relationships:\n      - columns: [OrderID, Amount]\n        references: Orders\n", 4, "pairs 2 column(s) with 1"),
        ("tables:\n  Invoices:\n    relationships:\n      - references: Orders\n", 4, "needs 'columns'"),
        ("tables:\n  Orders:\n    columns:\n      Shipped: { hidden: maybe }\n", 4, "true or false"),
        ("tables:\n  Orders:\n    name: Order Headers\n", 3, "not an OData identifier"),
        ("tables:\n  Orders: {}\n  Orders: {}\n", 2, "twice"),
    ] as [(String, Int, String)])
    func refusals(_ yaml: String, _ line: Int, _ fragment: String) throws {
        do {
            _ = try Self.check(yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ModelFileError {
            #expect(error.path == "shop.model.yaml")
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test("A name the file gives that another table or column has is refused at its line")
    func nameCollisions() throws {
        for (yaml, line, fragment) in [
            ("tables:\n  Orders:\n    columns:\n      Shipped:\n        name: OrderID\n", 5, "Shipped"),
            ("tables:\n  Invoices:\n    name: Orders\n", 3, "Invoices"),
            ("tables:\n  Order Details:\n    relationships:\n      - columns: [OrderID]\n        references: Orders\n        name: ProductID\n", 6, "ProductID"),
        ] {
            let file = try ModelFile(yaml: yaml, path: "shop.model.yaml")
            let shaped = try file.apply(to: Self.catalog, dialect: .sqlite)
            do {
                _ = try ModelBuilder(serviceName: "shop", namespace: "shop", logger: Logger(label: "test")).build(shaped)
                Issue.record("accepted: \(yaml)")
            } catch {
                let located = file.error(for: error)
                #expect(located.line == line, "\(located)")
                #expect(located.message.contains(fragment), "\(located)")
            }
        }
    }

    @Test("PostgreSQL columns keep their types; SQLite columns may be served as another type")
    func typeOverrides() throws {
        let yaml = "tables:\n  Orders:\n    columns:\n      Shipped: { type: Edm.Boolean }\n"
        let shaped = try Self.check(yaml)
        #expect(shaped.first { $0.name == "Orders" }?.column(named: "Shipped")?.type == .boolean)
        #expect(throws: ModelFileError.self) { try Self.check(yaml, dialect: .postgres) }
        #expect(throws: ModelFileError.self) {
            try Self.check("tables:\n  Orders:\n    columns:\n      OrderDate: { type: Edm.Binary }\n")
        }
        // Serving a column as the type it has is no change, on either database.
        _ = try Self.check("tables:\n  Orders:\n    columns:\n      Shipped: { type: Edm.Int32 }\n", dialect: .postgres)
    }

    @Test("An empty file, or one of comments, changes nothing")
    func emptyFile() throws {
        #expect(try Self.check("") == Self.catalog)
        #expect(try Self.check("# nothing yet\n") == Self.catalog)
    }

    @Test("Declared keys and relationships, hidden columns and navigation names reach the model")
    func applied() throws {
        let shaped = try Self.check("""
            tables:
              Order Details:
                columns:
                  note: { hidden: true }
                relationships:
                  - columns: [OrderID]
                    references: Orders
                    name: Order
                    reverseName: Lines
              Invoices:
                key: [OrderID]
                relationships:
                  - columns: [OrderID]
                    references: Orders
                    name: Order
                    reverseName: Invoices

            """)
        let details = try #require(shaped.first { $0.name == "Order Details" })
        #expect(details.column(named: "note") == nil)
        #expect(details.foreignKeys.count == 1 && details.foreignKeys[0].navigationName == "Order")
        #expect(details.foreignKeys[0].isDeclared == false)
        let invoices = try #require(shaped.first { $0.name == "Invoices" })
        #expect(invoices.declaredKey == ["OrderID"])
        #expect(invoices.foreignKeys.first?.isDeclared == true)

        let model = try ModelBuilder(serviceName: "shop", namespace: "shop", logger: Logger(label: "test")).build(shaped).model
        let invoiceType = try #require(model.entityType(named: "Invoices"))
        #expect(invoiceType.keyNames == ["OrderID"])
        #expect(invoiceType.navigationProperties.map(\.name) == ["Order"])
        let orders = try #require(model.entityType(named: "Orders"))
        #expect(Set(orders.navigationProperties.map(\.name)).isSuperset(of: ["Invoices"]))
    }

    @Test("A printed model reads back as a file that gives the same model")
    func roundTrip() throws {
        let first = try Self.check("""
            namespace: Northwind
            container: NorthwindEntities
            maxProtocolVersion: "1.0"
            tables:
              Orders:
                columns:
                  OrderDate: { hidden: true }
              Invoices:
                key: [OrderID]
                relationships:
                  - columns: [OrderID]
                    references: Orders
                    name: Order
                    reverseName: Invoices

            """)
        let logger = Logger(label: "test")
        var built = try ModelBuilder(serviceName: "shop", namespace: "Northwind", logger: logger).build(first)
        built.model.containerName = "NorthwindEntities"
        let file = try ModelFile(yaml: "tables:\n  Orders:\n    columns:\n      OrderDate: { hidden: true }\n", path: "x")
        let loaded = ServiceLoader.Loaded(settings: ServiceSettings(), built: built, maxProtocolVersion: .v1, original: Self.catalog, catalog: first, modelFile: file)
        let text = loaded.modelFileText(service: "shop")
        #expect(text.contains("  Invoices:  # a view\n    name: Invoices\n    key: [OrderID]\n"))
        #expect(text.contains("  \"Order Details\":\n    name: Order_Details\n"))
        #expect(text.contains("      \"Unit Price\": { name: Unit_Price, type: Edm.Decimal }"))
        #expect(text.contains("      Shipped: { name: Shipped, type: Edm.Int32 }"))
        #expect(text.contains("OrderDate: { hidden: true }"))

        let reread = try ModelFile(yaml: text, path: "printed").apply(to: Self.catalog, dialect: .sqlite)
        var again = try ModelBuilder(serviceName: "shop", namespace: "Northwind", logger: logger).build(reread)
        again.model.containerName = "NorthwindEntities"
        #expect(MetadataDocument.xml(for: again.model) == MetadataDocument.xml(for: built.model))
        #expect(again.names == built.names)
        #expect(try ModelFile(yaml: text, path: "printed").maxProtocolVersion?.value == .v1)
    }
}
