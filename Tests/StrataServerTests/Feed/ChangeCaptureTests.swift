import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
@testable import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Change capture (docs/design/CHANGE-FEED.md §1–2): triggers record every write to a tracked
/// table, Strata's and other programs', and the change log returns exactly those.
@Suite("Change capture")
struct ChangeCaptureTests {
    @Test("Inserts, updates, a link change and deletes through Strata are logged, in order, with their keys", arguments: Backend.allCases)
    func throughStrata(_ backend: Backend) async throws {
        try await withTrackedServer(backend) { server in
            let start = try await server.current()
            let created = try await server.client.post("/cardealer/Car", #"{"make":"Saab","model":"900"}"#)
            #expect(created.status == .created, "\(created.text)")
            let carID = try #require(created.json["d"]["carID"]?.int64Value)
            let merged = try await server.client.merge("/cardealer/Car(\(carID))", #"{"model":"9000"}"#)
            #expect(merged.status == .noContent, "\(merged.text)")
            // PersonCar 1 moves to the new car: its old side (old carID) is logged too.
            let oldCar = try #require(try await server.client.get("/cardealer/PersonCar(1)").json["d"]["carID"]?.int64Value)
            #expect(try await server.client.merge("/cardealer/PersonCar(1)", #"{"carID":\#(carID)}"#).status == .noContent)
            #expect(try await server.client.merge("/cardealer/PersonCar(1)", #"{"carID":\#(oldCar)}"#).status == .noContent)
            #expect(try await server.client.delete("/cardealer/Car(\(carID))").status == .noContent)

            let window = try await server.window(after: start)
            #expect(window.complete)
            #expect(window.changes.map(\.summary) == [
                "Car \(carID)", "Car \(carID)", "PersonCar 1", "PersonCar 1", "PersonCar 1", "PersonCar 1", "Car \(carID)",
            ])
            // The link change logged both sides: the old parent and the new.
            let links = window.changes.filter { $0.table == "PersonCar" }.map { $0.links["carID"]?.integerValue }
            #expect(links == [oldCar, carID, carID, oldCar])
            #expect(window.changes[2].links["personID"] != nil)
            // Keys decode as the catalog types them, so they bind back in a WHERE.
            let keyType = try server.service.model.entityType(of: try #require(server.service.model.entitySets.first { $0.name == "Car" }))
                .property(named: "carID")?.type
            #expect(window.changes[0].key["carID"]?.type == keyType)
            // Each Strata write is its own transaction, recorded.
            let transactions = window.changes.map(\.transaction)
            try #require(transactions.count == 7)
            #expect(transactions.allSatisfy { $0 != nil })
            #expect(Set(transactions).count == 5)
            #expect(transactions[2] == transactions[3], "one MERGE logs both sides in one transaction")
            // Positions grow, and the window ends where the log is now.
            #expect(window.changes.map(\.position) == window.changes.map(\.position).sorted())
            let after = try await server.window(after: window.end)
            #expect(after.changes.isEmpty)
        }
    }

    @Test("Writes by another program are logged, succeed with the triggers in place, and the key change logs both keys",
          arguments: Backend.allCases)
    func foreignWrites(_ backend: Backend) async throws {
        try await withTrackedServer(backend) { server in
            let start = try await server.current()
            try await server.foreign(
                #"INSERT INTO "Car" ("carID", "make", "model") VALUES (900, 'Trabant', '601')"#,
                #"UPDATE "Car" SET "model" = 'P50' WHERE "carID" = 900"#,
                #"UPDATE "Car" SET "carID" = 901 WHERE "carID" = 900"#,
                #"DELETE FROM "Car" WHERE "carID" = 901"#)
            let window = try await server.window(after: start)
            try #require(window.changes.count == 5)
            #expect(window.changes.map(\.summary) == ["Car 900", "Car 900", "Car 900", "Car 901", "Car 901"])
            switch backend {
            case .sqlite:
                // Another program's writes carry no transaction (Strata's counter is not open).
                #expect(window.changes.allSatisfy { $0.transaction == nil })
            case .postgres:
                // Python's executescript and our connection commit each statement: four transactions.
                #expect(window.changes.allSatisfy { $0.transaction != nil })
                #expect(Set(window.changes.map(\.transaction)).count == 4)
            }
            // The foreign writes really happened.
            #expect(try await server.client.get("/cardealer/Car(901)").status == .notFound)
        }
    }

    @Test("One $changes request is one transaction in the log", arguments: Backend.allCases)
    func transactionGrouping(_ backend: Backend) async throws {
        try await withTrackedServer(backend) { server in
            let start = try await server.current()
            let response = try await server.client.apply(DataTableDelta(changes: [
                DataTableChange(id: "a", table: "Person", kind: .insert, key: ["personID": .int32(-1)],
                                values: ["firstName": .string("Ada"), "lastName": .string("Lovelace")]),
                DataTableChange(id: "b", table: "Car", kind: .insert, key: ["carID": .int32(-2)],
                                values: ["make": .string("Babbage"), "model": .string("Engine")]),
                DataTableChange(id: "c", table: "Person", kind: .update, key: ["personID": .int32(1)],
                                original: ["lastName": .string("Samson")], values: ["lastName": .string("Samsonite")]),
            ]))
            #expect(response.result("c")?.status == .applied, "\(response.result("c")?.message ?? "")")
            _ = try await server.client.post("/cardealer/Car", #"{"make":"Saab","model":"96"}"#)
            let window = try await server.window(after: start)
            try #require(window.changes.count == 4)
            let first = window.changes.prefix(3).map(\.transaction)
            #expect(Set(first).count == 1 && first[0] != nil)
            #expect(window.changes[3].transaction != first[0])
            #expect(Set(window.changes.map(\.table)) == ["Person", "Car"])
        }
    }

    @Test("A limited window ends at a transaction boundary and continues from there", arguments: Backend.allCases)
    func limitKeepsTransactions(_ backend: Backend) async throws {
        try await withTrackedServer(backend) { server in
            let start = try await server.current()
            _ = try await server.client.apply(DataTableDelta(changes: (1...3).map { index in
                DataTableChange(id: "c\(index)", table: "Car", kind: .insert, key: ["carID": .int32(Int32(-index))],
                                values: ["make": .string("M\(index)"), "model": .string("X")])
            }))
            _ = try await server.client.post("/cardealer/Car", #"{"make":"Saab","model":"96"}"#)
            let first = try await server.window(after: start, limit: 2)
            #expect(first.changes.count == 3, "the limit does not split the three-row transaction")
            #expect(!first.complete)
            let second = try await server.window(after: first.end, limit: 2)
            #expect(second.changes.count == 1)
            #expect(second.complete)
            #expect(second.changes[0].transaction != first.changes[0].transaction)
            #expect(try await server.window(after: second.end).changes.isEmpty)
        }
    }

    @Test("Tracking off drops every trigger and the log; writes still work", arguments: Backend.allCases)
    func trackingOff(_ backend: Backend) async throws {
        try await withTrackedServer(backend, tables: ["Car", "Person"]) { server in
            #expect(try server.service.trackedTables == ["Car", "Person"])
            #expect(try server.service.isTracked(entitySet: "Car"))
            #expect(try !server.service.isTracked(entitySet: "PersonCar"))
            let info = try #require(try await server.info())
            #expect(info.trackedTables == ["Car", "Person"])
            #expect(info.epoch.count == 16)
            #expect(info.horizon == nil)
            #expect(try await triggerCount(server) == (backend == .sqlite ? 6 : 6))

            // Untracking one table drops its triggers only.
            try await enableTracking(server.runtime, server.configuration, tables: ["Person"], off: true)
            #expect(try await server.info()?.trackedTables == ["Car"])
            #expect(try await triggerCount(server) == 3)
            #expect(try await server.info()?.epoch == info.epoch, "the log stays while a table is tracked")

            try await enableTracking(server.runtime, server.configuration, off: true)
            #expect(try server.service.trackedTables.isEmpty)
            #expect(try await server.info() == nil)
            #expect(try await triggerCount(server) == 0)
            #expect(try await logTableCount(server) == 0)
            #expect(try await server.client.post("/cardealer/Car", #"{"make":"Saab","model":"96"}"#).status == .created)
            try await server.foreign(#"INSERT INTO "Car" ("make", "model") VALUES ('Lada', 'Niva')"#)

            // On again: a new epoch.
            try await enableTracking(server.runtime, server.configuration)
            let again = try #require(try await server.info())
            #expect(again.epoch != info.epoch)
        }
    }

    @Test("A second apply of the same model changes nothing", arguments: Backend.allCases)
    func idempotent(_ backend: Backend) async throws {
        try await withTrackedServer(backend, tables: ["Car"]) { server in
            let capture = ChangeCapture(storage: try server.service.storage)
            let tables = [CaptureTable(name: "Car", key: ["carID"], links: [])]
            let outcome = try await capture.apply(tables)
            #expect(outcome == ChangeCapture.Outcome())
            // Concurrent appliers (several servers) agree.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { try await capture.apply(tables) } }
                try await group.waitForAll()
            }
            #expect(try await triggerCount(server) == 3)
        }
    }

    @Test("The log is never served: not in the catalog, $metadata or $sql", arguments: Backend.allCases)
    func logHidden(_ backend: Backend) async throws {
        try await withTrackedServer(backend) { server in
            _ = try await server.client.post("/cardealer/Car", #"{"make":"Saab","model":"96"}"#)
            #expect(try await logTableCount(server) > 0)
            let storage = try server.service.storage
            let tables = try await storage.database.read { try await storage.catalogReader.readTables($0) }.map(\.name)
            #expect(!tables.contains { $0.hasPrefix("_strata") })
            let metadata = try await server.client.get("/cardealer/$metadata").text
            #expect(!metadata.contains("_strata") && !metadata.contains("strata_feed"))
            #expect(metadata.contains("EntitySet Name=\"Car\""))
            let names = try await server.runtime.store.discover().map(\.name)
            #expect(!names.contains("strata_feed"))
            let sql = try await server.client.sql("SELECT * FROM _strata_changes")
            #expect(sql.status == .badRequest)
            if backend == .postgres {
                #expect(try await server.client.sql(#"SELECT * FROM strata_feed.cardealer"#).status == .badRequest)
            }
        }
    }

    @Test("Pruning deletes old changes in batches, raises the horizon, and isPruned says so", arguments: Backend.allCases)
    func pruning(_ backend: Backend) async throws {
        try await withTrackedServer(backend, tables: ["Car"]) { server in
            let start = try await server.current()
            for index in 0..<5 { _ = try await server.client.post("/cardealer/Car", #"{"make":"M\#(index)","model":"X"}"#) }
            let window = try await server.window(after: start)
            #expect(window.changes.count == 5)
            // The first four are a day old.
            let fourth = window.changes[3].position
            switch backend {
            case .sqlite:
                try await server.foreign("UPDATE _strata_changes SET at = at - 86400 WHERE position <= \(fourth)")
            case .postgres:
                try await server.foreign("UPDATE strata_feed.cardealer SET at = at - interval '1 day' WHERE position <= \(fourth)")
            }
            let log = try server.log
            #expect(try await log.prune(olderThan: .seconds(3600), batch: 3) == 4)
            let info = try #require(try await server.info())
            #expect(info.horizon != nil)
            #expect(log.isPruned(start, info: info))
            #expect(!log.isPruned(window.end, info: info))
            let rest = try await server.window(after: start)
            #expect(rest.changes.map(\.position) == [window.changes[4].position])
            #expect(try await log.prune(olderThan: .seconds(3600)) == 0)
            if case .position(let horizon)? = info.horizon { #expect(horizon == fourth) }
        }
    }

    @Test("The runtime's pruner prunes every tracked service, leaves recent changes, and its statements are not counted",
          arguments: Backend.allCases)
    func runtimePruner(_ backend: Backend) async throws {
        try await withTrackedServer(backend, tables: ["Car"]) { server in
            let start = try await server.current()
            for index in 0..<3 { _ = try await server.client.post("/cardealer/Car", #"{"make":"M\#(index)","model":"X"}"#) }
            let table = backend == .sqlite ? "_strata_changes" : "strata_feed.cardealer"
            let age = backend == .sqlite ? "at - 7200" : "at - interval '2 hours'"
            try await server.foreign("UPDATE \(table) SET at = \(age)")
            _ = try await server.client.post("/cardealer/Car", #"{"make":"New","model":"X"}"#)
            // What a write sets off after its answer (the feed's wake-up on PostgreSQL) runs first: a CI
            // run on a loaded machine once counted such a statement between the two readings below.
            var statements = try await statementCount(server.client)
            for _ in 0..<50 {
                try await Task.sleep(for: .milliseconds(100))
                let now = try await statementCount(server.client)
                if now == statements { break }
                statements = now
            }
            await ChangeLogPruner.pruneAll(server.runtime.allServices, retention: .seconds(3600), logger: TestDatabases.logger)
            #expect(try await statementCount(server.client) == statements, "upkeep is not the services' SQL: not counted")
            let rest = try await server.window(after: start)
            #expect(rest.changes.count == 1)
            let info = try #require(try await server.info())
            #expect(try server.log.isPruned(start, info: info))
        }
    }

    /// Triggers Strata made on the service's tables.
    private func triggerCount(_ server: TrackedServer) async throws -> Int {
        let sql = ChangeCaptureSQL(dialect: server.backend == .sqlite ? .sqlite : .postgres, service: "cardealer",
                                   schema: server.backend == .sqlite ? nil : "cardealer")
        return try await server.query(SQLStatement(sql.existingTriggers, dialect: sql.dialect), types: [.string, .string, .string]).count
    }

    /// The log tables (SQLite: in the file; PostgreSQL: in `strata_feed`).
    private func logTableCount(_ server: TrackedServer) async throws -> Int64 {
        let statement: SQL = server.backend == .sqlite
            ? "SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_strata\\_%' ESCAPE '\\'"
            : "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'strata_feed'"
        let rows = try await server.query(SQLStatement(statement, dialect: server.backend == .sqlite ? .sqlite : .postgres), types: [.int64])
        return rows.first?.first?.integerValue ?? -1
    }
}
