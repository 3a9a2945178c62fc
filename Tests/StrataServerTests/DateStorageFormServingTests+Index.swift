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

/// The forms the catalog reader finds, and SQLite's plans for comparisons in them.
extension DateStorageFormServingTests {
    @Test("The catalog reader names each form, and an index serves comparisons and order on every consistent form")
    func indexServesConsistentForms() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-dates-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await PythonSQLite.execute(directory.appendingPathComponent("\(Self.service).sqlite").path, DateFormFixtures.sqliteScript)
        let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
        do {
            var storage = try #require(try await store.discover().first { $0.name == Self.service })
            let tables = try await storage.database.read { [storage] in try await storage.catalogReader.readTables($0) }
            storage.dateForms = DateForms(tables, service: Self.service, logger: TestDatabases.logger)
            for table in DateFormFixtures.tables {
                #expect(storage.dateForms[table: table.name, column: "OrderDate"] == table.form, "\(table.name)")
            }
            #expect(storage.dateForms[table: "Days", column: "Day"] == .text(DateTextLayout(precisions: [.day])))
            let catalog = try ModelBuilder(serviceName: Self.service, namespace: Self.service, logger: TestDatabases.logger).build(tables)
            let service = ODataService(storage: storage, catalog: catalog, settings: ServiceSettings())

            for table in DateFormFixtures.tables {
                let literal = { (text: String) in DateFormFixtures.literal(text, for: table) }
                let plan = try await Self.plan(service, table.name,
                                               "$filter=OrderDate ge \(literal("2017-01-01T00:00:00")) and OrderDate lt \(literal("2017-02-01T00:00:00"))&$orderby=OrderDate")
                if table.form == .mixed {
                    #expect(!plan.contains("INDEX"), "\(table.name): \(plan)")
                } else {
                    #expect(plan.contains("INDEX \(table.name)_OrderDate (OrderDate>? AND OrderDate<?)"), "\(table.name): \(plan)")
                    #expect(!plan.contains("TEMP B-TREE"), "\(table.name): \(plan)")
                }
                let equal = try await Self.plan(service, table.name, "$filter=OrderDate eq \(literal("2016-07-04T00:00:00"))")
                if table.form != .mixed { #expect(equal.contains("INDEX \(table.name)_OrderDate (OrderDate"), "\(table.name): \(equal)") }
            }
            let key = try await Self.plan(service, "Days", "$filter=Day eq datetime'2016-07-04T00:00:00'")
            #expect(key.contains("INDEX sqlite_autoindex_Days_1 (Day=?)"), "\(key)")

            let checked = try ClientSQL.check("SELECT id FROM Seconds WHERE OrderDate >= '2017-01-01' AND OrderDate < '2017-02-01'",
                                              catalog: service.dataTables.sqlCatalog)
            let statement = try SQLQueryOperation.statement(checked, service: service, sources: [:], rowLimit: 1000)
            let sqlPlan = try await storage.database.read { try await $0.query(statement.explained(for: .sqlite)) }
                .rows.compactMap { $0.last?.stringValue }.joined(separator: "\n")
            #expect(sqlPlan.contains("USING COVERING INDEX Seconds_OrderDate (OrderDate>? AND OrderDate<?)"), "\(sqlPlan)")
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    /// SQLite's plan for the first chunk of `Set?query`, planned as the server plans it.
    static func plan(_ service: ODataService, _ setName: String, _ query: String) async throws -> String {
        let set = try #require(service.model.entitySet(named: setName))
        let type = service.model.entityType(of: set)
        let bound = try QueryBinder(model: service.model).bind(QueryOptions(parsing: query), to: type)
        let path = ResolvedPath(steps: [ResolvedPath.Step(set: set, type: type, via: nil, key: nil)], terminal: .entities)
        var access = ReadAccess()
        access.add(setName, .unrestricted)
        let plan = try ReadPlanner(service: service, access: access).plan(path, bound)
        let reader = CollectionReader(database: service.database, query: plan.query, sortKeys: plan.sortKeys, columnTypes: plan.columns.map(\.type))
        let statement = SQLRenderer.render(reader.chunkQuery(limit: 1000, offset: 0, after: nil), dialect: .sqlite)
        let rows = try await service.database.read { try await $0.query(statement.explained(for: .sqlite)) }
        return rows.rows.compactMap { $0.last?.stringValue }.joined(separator: "\n")
    }
}
