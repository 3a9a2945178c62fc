import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// A service made by plain SQL whose names are not OData identifiers, as sample databases have
/// them: `Order Details` with `Order ID`, `Unit Price`, a composite key and a foreign key to
/// `Orders`; a view with a space in its name; columns that meet after sanitizing (`a b` and `a_b`);
/// a table whose name starts with a digit, with a nullable foreign key. One script for both databases.
enum NamesService {
    static let service = TestService(name: "names") { _ in
        [#"""
        CREATE TABLE "Orders" ("Order ID" INT PRIMARY KEY, "Customer Name" VARCHAR(40) NOT NULL);
        CREATE TABLE "Order Details" (
          "Order ID" INT NOT NULL REFERENCES "Orders" ("Order ID"),
          "Line No" INT NOT NULL,
          "Unit Price" DECIMAL(10,2) NOT NULL,
          "Qty Ordered" INT NOT NULL DEFAULT 1,
          "a b" VARCHAR(20),
          "a_b" VARCHAR(20),
          PRIMARY KEY ("Order ID", "Line No"));
        CREATE VIEW "Big Orders" AS SELECT "Order ID", "Customer Name" FROM "Orders" WHERE "Order ID" >= 2;
        CREATE TABLE "2021 Sales" ("id" INT PRIMARY KEY, "amount" INT NOT NULL, "Order ID" INT REFERENCES "Orders" ("Order ID"));
        INSERT INTO "Orders" ("Order ID", "Customer Name") VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy');
        INSERT INTO "Order Details" ("Order ID", "Line No", "Unit Price", "Qty Ordered", "a b", "a_b") VALUES
          (1, 1, 14.5, 2, 'x', 'p'), (1, 2, 9.25, 1, NULL, 'q'), (2, 1, 20, 5, 'y', NULL), (3, 1, 3.75, 10, 'x', 'r');
        INSERT INTO "2021 Sales" ("id", "amount", "Order ID") VALUES (1, 100, 1), (2, 250, NULL);
        """#]
    }

    /// `Order_Details`' properties in column order, with their types.
    static let detailProperties: [(String, EDMPrimitiveType)] = [
        ("Order_ID", .int32), ("Line_No", .int32), ("Unit_Price", .decimal), ("Qty_Ordered", .int32), ("a_b_2", .string), ("a_b", .string),
    ]

    /// The same columns, by their database names, for the direct queries.
    static let detailColumns: SQL = #""Order ID", "Line No", "Unit Price", "Qty Ordered", "a b", "a_b""#

    static var detailTypes: [EDMPrimitiveType?] { detailProperties.map(\.1) }
}

/// The service's database opened beside the running server, as any other client of the database
/// would open it: the "same question asked of the database directly".
struct DirectDatabase: Sendable {
    let storage: ServiceStorage

    func table(_ name: String) -> TableName {
        TableName(schema: storage.schema, name: name)
    }

    func rows(_ sql: SQL, _ types: [EDMPrimitiveType?]) async throws -> [[ODataValue]] {
        try await storage.database.read { try await $0.query(sql, types: types) }.rows
    }

    /// Runs `body` with the service `name` of a test server's data, opened through a store of its own.
    static func with<T: Sendable>(_ configuration: StrataConfiguration, service name: String,
                                  _ body: @Sendable (DirectDatabase) async throws -> T) async throws -> T {
        switch configuration.database {
        case .postgres(let location):
            let endpoint = PostgresTestCluster.Endpoint(location)
            return try await TestDatabases.withAdminClient(endpoint, database: location.database ?? "postgres") { client in
                try await open(PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger), name, body)
            }
        default:
            let store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                          counter: .none, logger: TestDatabases.logger)
            do {
                let result = try await open(store, name, body)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    private static func open<T: Sendable>(_ store: any ServiceStore, _ name: String,
                                          _ body: @Sendable (DirectDatabase) async throws -> T) async throws -> T {
        let storage = try #require(try await store.discover().first { $0.name == name })
        return try await body(DirectDatabase(storage: storage))
    }
}

/// ``withServer(_:demo:pageSize:services:configure:_:)`` on the names service alone, with its
/// database opened directly beside it.
func withNamesServer(_ backend: Backend, pageSize: Int = 1000,
                     _ test: @Sendable (any TestClientProtocol, DirectDatabase) async throws -> Void) async throws {
    let configuration = NIOLockedValueBox<StrataConfiguration?>(nil)
    try await withServer(backend, demo: false, pageSize: pageSize, services: [NamesService.service],
                         configure: { config in configuration.withLockedValue { $0 = config } }) { client in
        let stored = try #require(configuration.withLockedValue { $0 })
        try await DirectDatabase.with(stored, service: NamesService.service.name) { direct in
            try await test(client, direct)
        }
    }
}

extension TestResponse {
    /// The entities of a collection answer (`d.results`, or `d` as OData 1.0 writes it).
    var entities: [JSONValue] {
        let json = self.json
        return json["d"]["results"]?.arrayValue ?? json["d"]?.arrayValue ?? []
    }
}

/// Rows of typed values read from JSON entities, for comparison with rows the database returns.
func typedRows(_ entities: [JSONValue], _ properties: [(String, EDMPrimitiveType)],
               sourceLocation: SourceLocation = #_sourceLocation) -> [[ODataValue]] {
    entities.map { entity in
        properties.map { name, type in
            do {
                return try ODataJSON.decode(entity[name] ?? .null, as: type)
            } catch {
                Issue.record("\(name): \(error)", sourceLocation: sourceLocation)
                return .null
            }
        }
    }
}
