import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
@testable import StrataCore
@testable import StrataServer
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

    static func ids(_ client: any TestClientProtocol, _ sql: String) async throws -> [Int64] {
        let response = try await client.sql(sql, service: service.name)
        #expect(response.status == .ok, "\(sql): \(response.text)")
        let table = try #require(try CompactTable.decode(Array(response.body.readableBytesView)).first)
        return table.column("id").compactMap(\.integerValue)
    }

    /// The database's plan for the statement the server runs for `sql`: the service's model is read
    /// from the catalog as the server reads it, and the statement built by the server's own code.
    static func plan(_ sql: String, service name: String, configuration: StrataConfiguration) async throws -> String {
        let explain: @Sendable (any ServiceStore) async throws -> String = { store in
            let storage = try #require(try await store.discover().first { $0.name == name })
            let tables = try await storage.database.read { try await storage.catalogReader.readTables($0) }
            let model = ModelBuilder(serviceName: name, namespace: name, logger: TestDatabases.logger).build(tables)
            let service = ODataService(storage: storage, model: model, settings: ServiceSettings())
            let checked = try ClientSQL.check(sql, catalog: SQLCatalog(model: model))
            var sources: [String: SQLQueryOperation.Source] = [:]
            for set in model.entitySets { sources[set.name] = SQLQueryOperation.source(set, filter: nil, service: service) }
            let statement = try SQLQueryOperation.statement(checked, service: service, sources: sources, rowLimit: 1000)
            let prefix = storage.database.dialect == .postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN "
            let result = try await storage.database.read { try await $0.query(SQLStatement(prefix + statement.sql, binds: statement.binds)) }
            // PostgreSQL answers one line of text per row; SQLite's detail is the last column.
            return result.rows.compactMap { $0.last?.stringValue }.joined(separator: "\n")
        }
        switch configuration.database {
        case .postgres(let location):
            let endpoint = PostgresTestCluster.Endpoint(host: location.host, port: location.port, user: location.username)
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
