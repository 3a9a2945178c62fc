import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
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

/// `$sql` ordered by a key or NOT NULL column is read off an index: the emitted statement says no
/// `NULLS FIRST/LAST` there (PostgreSQL cannot use a btree for `ASC NULLS FIRST`), while nullable
/// order keys keep the clause, so both databases still return the same rows in the same order.
@Suite("Data tables: SQL order")
struct DataTableSQLOrderTests {
    static let rows = 20_000

    /// `code` runs backwards (20000 … 1) under an index of its own; every seventh `note` is NULL.
    static let service = TestService(name: "ordered") { _ in
        [#"""
        CREATE TABLE "Item" ("id" INTEGER PRIMARY KEY, "code" INTEGER NOT NULL, "note" VARCHAR(40));
        CREATE INDEX "Item_code" ON "Item" ("code");
        INSERT INTO "Item" ("id", "code", "note") WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \#(Self.rows))
          SELECT i, \#(Self.rows + 1) - i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'note ' || (i % 100) END FROM n;
        """#]
    }

    @Test("Ordered by key or NOT NULL column: index-backed, same rows on both; nullable keys keep nulls first", arguments: Backend.allCases)
    func orderedByIndex(_ backend: Backend) async throws {
        let configuration = NIOLockedValueBox<StrataConfiguration?>(nil)
        try await withServer(backend, demo: false, services: [Self.service], configure: { config in configuration.withLockedValue { $0 = config } }) { client in
            let indexed: [(String, [Int64])] = [
                ("SELECT id, code FROM Item ORDER BY id LIMIT 100", Array(1...100)),
                ("SELECT id FROM Item ORDER BY id DESC LIMIT 10 OFFSET 5", Array((19_986...19_995).reversed())),
                ("SELECT i.note, i.id FROM Item i ORDER BY i.code LIMIT 3", [20_000, 19_999, 19_998]),
            ]
            for (sql, ids) in indexed {
                #expect(try await Self.ids(client, sql) == ids, "\(sql)")
            }
            // NULLs first ascending on both databases: a nullable column, and a key on the optional side of a LEFT JOIN.
            #expect(try await Self.ids(client, "SELECT id, note FROM Item ORDER BY note, id LIMIT 3") == [7, 14, 21])
            #expect(try await Self.ids(client, "SELECT i.id FROM Item i LEFT JOIN Item j ON j.id = i.id + 19990 ORDER BY j.id, i.id LIMIT 3")
                    == [11, 12, 13])

            let stored = try #require(configuration.withLockedValue { $0 })
            for (sql, _) in indexed {
                let plan = try await Self.plan(sql, service: Self.service.name, configuration: stored)
                switch backend {
                case .postgres:
                    #expect(plan.contains("Index Scan") || plan.contains("Index Only Scan"), "\(sql):\n\(plan)")
                    #expect(!plan.contains("Sort"), "\(sql):\n\(plan)")
                case .sqlite:
                    #expect(!plan.contains("TEMP B-TREE"), "\(sql):\n\(plan)")
                }
            }
            // The check can tell: a nullable order key is sorted, on both databases.
            let sorted = try await Self.plan("SELECT id FROM Item ORDER BY note LIMIT 3", service: Self.service.name, configuration: stored)
            #expect(sorted.contains(backend == .postgres ? "Sort" : "TEMP B-TREE"), "\(sorted)")
        }
    }

    /// Words whose order differs by collation: byte-wise `B Z _ a b`, ICU's `_ a b B Z`. On PostgreSQL
    /// the column is declared with the ICU collation, and an index in the C collation serves `$sql`.
    static let words = TestService(name: "words") { backend in
        let collation = backend == .postgres ? #" COLLATE "und-x-icu""# : ""
        let index = backend == .postgres ? #"CREATE INDEX "Word_name" ON "Word" ("name" COLLATE "C", "id");"# : ""
        return [#"""
        CREATE TABLE "Word" ("id" INTEGER PRIMARY KEY, "name" VARCHAR(20)\#(collation) NOT NULL);
        \#(index)
        INSERT INTO "Word" ("id", "name") VALUES (1, 'a'), (2, 'B'), (3, '_'), (4, 'Z'), (5, 'b');
        """#]
    }

    @Test("Strings compare and sort byte by byte on both databases, whatever the column's collation", arguments: Backend.allCases)
    func stringsAreOrdinal(_ backend: Backend) async throws {
        let configuration = NIOLockedValueBox<StrataConfiguration?>(nil)
        try await withServer(backend, demo: false, services: [Self.words], configure: { config in configuration.withLockedValue { $0 = config } }) { client in
            let cases: [(String, [String])] = [
                ("SELECT name FROM Word ORDER BY name", ["B", "Z", "_", "a", "b"]),
                ("SELECT name FROM Word ORDER BY 1 DESC", ["b", "a", "_", "Z", "B"]),
                ("SELECT DISTINCT name FROM Word ORDER BY name DESC LIMIT 2", ["b", "a"]),
                ("SELECT name FROM Word WHERE name < 'a' ORDER BY id", ["B", "_", "Z"]),
                ("SELECT name FROM Word WHERE name >= :from ORDER BY id", ["a", "_", "b"]),
                ("SELECT name FROM Word WHERE name BETWEEN 'Z' AND 'a' ORDER BY id", ["a", "_", "Z"]),
                ("SELECT name FROM Word WHERE name NOT BETWEEN 'Z' AND 'a' ORDER BY id", ["B", "b"]),
                ("SELECT MIN(name) AS name FROM Word", ["B"]),
                ("SELECT MAX(name) AS name FROM Word", ["b"]),
                ("SELECT UPPER(name) AS name, COUNT(*) AS n FROM Word GROUP BY UPPER(name) ORDER BY 1", ["A", "B", "Z", "_"]),
                ("SELECT name FROM Word WHERE name = 'B' OR name IN ('b', 'c') ORDER BY name", ["B", "b"]),
            ]
            for (sql, names) in cases {
                let response = try await client.sql(sql, parameters: ["from": .string("_")], service: Self.words.name)
                #expect(response.status == .ok, "\(sql): \(response.text)")
                let table = try #require(try CompactTable.decode(Array(response.body.readableBytesView)).first)
                #expect(table.column("name").compactMap(\.stringValue) == names, "\(sql)")
            }
            // The C-collation index serves a range and its order, as it serves `$orderby`.
            guard backend == .postgres else { return }
            let stored = try #require(configuration.withLockedValue { $0 })
            let plan = try await Self.plan("SELECT id, name FROM Word WHERE name >= '_' ORDER BY name, id LIMIT 2",
                                           service: Self.words.name, configuration: stored, disableSeqScan: true)
            #expect(plan.contains("Word_name") && !plan.contains("Sort"), "\(plan)")
        }
    }

    static func ids(_ client: any TestClientProtocol, _ sql: String) async throws -> [Int64] {
        let response = try await client.sql(sql, service: service.name)
        #expect(response.status == .ok, "\(sql): \(response.text)")
        let table = try #require(try CompactTable.decode(Array(response.body.readableBytesView)).first)
        return table.column("id").compactMap(\.integerValue)
    }

    /// The database's plan for the statement the server runs for `sql`: the service's model is read
    /// from the catalog as the server reads it, and the statement built by the server's own code.
    static func plan(_ sql: String, service name: String, configuration: StrataConfiguration, disableSeqScan: Bool = false) async throws -> String {
        let explain: @Sendable (any ServiceStore) async throws -> String = { store in
            let storage = try #require(try await store.discover().first { $0.name == name })
            let tables = try await storage.database.read { try await storage.catalogReader.readTables($0) }
            let catalog = try ModelBuilder(serviceName: name, namespace: name, logger: TestDatabases.logger).build(tables)
            let model = catalog.model
            let service = ODataService(storage: storage, catalog: catalog, settings: ServiceSettings())
            let checked = try ClientSQL.check(sql, catalog: service.dataTables.sqlCatalog)
            var sources: [String: SQLQueryOperation.Source] = [:]
            for set in model.entitySets { sources[set.name] = SQLQueryOperation.source(set, filter: nil, service: service) }
            let statement = try SQLQueryOperation.statement(checked, service: service, sources: sources, rowLimit: 1000)
            let result = try await storage.database.read { connection in
                // Five rows are read fastest without an index; the question is whether the index can serve.
                if disableSeqScan { try await connection.execute("SET enable_seqscan = off") }
                return try await connection.query(statement.explained(for: storage.database.dialect))
            }
            // PostgreSQL answers one line of text per row; SQLite's detail is the last column.
            return result.rows.compactMap { $0.last?.stringValue }.joined(separator: "\n")
        }
        switch configuration.database {
        case .postgres(let location):
            let endpoint = PostgresTestCluster.Endpoint(location)
            return try await TestDatabases.withAdminClient(endpoint, database: location.database ?? "postgres") { client in
                try await explain(PostgresServiceStore(client: client, counter: .none, logger: TestDatabases.logger))
            }
        default:
            let store = try await SQLiteServiceStore.open(directory: URL(fileURLWithPath: configuration.dataDirectory), singleFile: nil,
                                                          counter: .none, logger: TestDatabases.logger)
            do {
                let plan = try await explain(store)
                await store.close()
                return plan
            } catch {
                await store.close()
                throw error
            }
        }
    }
}
