import Foundation
import StrataClient
import StrataCore
import Testing

/// The data table client against a real server over a socket, on both databases: fetch, SQL,
/// edits applied back, master-detail inserts, conflicts and their resolutions, apply modes,
/// briefcases and asynchronous requests.
@Suite("Data tables: client end to end")
struct DataTableClientTests {
    @Test("Fetch by name with every option, several tables, and checked SQL", arguments: Backend.allCases)
    func fetch(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            let people = try await adapter.table("Person", where: "lastName eq 'Johnson' or lastName eq 'Campbell'",
                                                 orderBy: "lastName desc,firstName", select: ["firstName"], top: 3, skip: 1)
            #expect(people.name == "Person")
            #expect(people.fields.map(\.name) == ["personID", "firstName"])
            #expect(people.rows.count == 3)
            #expect(people.rows.allSatisfy { $0.state == .unchanged })
            // The same filter built with typed fields reads the same rows.
            let lastName = Field<String>("lastName")
            let typed = try await adapter.table("Person", where: lastName == "Johnson" || lastName == "Campbell",
                                                orderBy: "lastName desc,firstName", select: ["firstName"], top: 3, skip: 1)
            #expect(typed.rows.map { $0["firstName"] } == people.rows.map { $0["firstName"] })
            #expect(ReplicaTable("Person", where: lastName == "Johnson").filter == "lastName eq 'Johnson'")
            let all = try await adapter.tables(["Car", "PersonCar"])
            #expect(all.map(\.name) == ["Car", "PersonCar"])
            #expect(all[0].rows.count > 100)
            let cars = try await adapter.table(sql: "SELECT carID, make FROM Car WHERE make = :make ORDER BY carID", parameters: ["make": .string("Ford")])
            #expect(cars.name == "Car")
            #expect(!cars.rows.isEmpty && cars.rows.allSatisfy { $0.make == .string("Ford") })
            do {
                _ = try await adapter.table(sql: "SELECT * FROM Person; DROP TABLE Person")
                Issue.record("the server accepted two statements")
            } catch let error as StrataError {
                #expect(error.kind == .badRequest && error.status == 400 && error.code == "SQLNotAllowed", "\(error)")
            }
            do {
                _ = try await adapter.table("Nope")
                Issue.record("a missing table was answered")
            } catch {
                #expect((error as? StrataError)?.status == 404)
            }
        }
    }

    @Test("Edits, deletes and master-detail inserts with temporary keys apply and merge back", arguments: Backend.allCases)
    func applyEdits(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            var people = try await adapter.table("Person", where: "personID le 3")
            var cars = try await adapter.table("Car", where: "carID eq 1")
            var links = try await adapter.table("PersonCar", top: 0)
            let bob = try #require(people.row(where: "personID", is: .int32(1)))
            try people.update(bob.id) { try $0.set("lastName", to: "Samsonite") }
            let ada = try people.addRow(["firstName": "Ada", "lastName": "Lovelace"])
            let car = try cars.addRow(["make": "Babbage", "model": "Difference Engine"])
            let adaKey = try #require(people[ada]?.personID)
            let carKey = try #require(cars[car]?.carID)
            #expect(adaKey == .int32(-1) && carKey == .int32(-1), "temporary keys start at -1 in each table")
            try links.addRow(["personID": adaKey, "carID": carKey])
            var tables = [people, cars, links]
            let summary = try await adapter.applyChanges(&tables)
            #expect(summary.succeeded, "\(summary.response.results.map { $0.message ?? "" })")
            (people, cars, links) = (tables[0], tables[1], tables[2])
            #expect(!people.hasChanges && !cars.hasChanges && !links.hasChanges)
            let stored = try #require(people[ada])
            let personID = try #require(stored.personID?.integerValue)
            #expect(personID > 0 && stored.state == .unchanged)
            #expect(stored.createDate?.isNull == false, "the server's default came back")
            #expect(links.rows.first?.personID?.integerValue == personID)
            #expect(links.rows.first?.carID == cars[car]?.carID)
            let check = try await adapter.table("PersonCar", where: "personID eq \(personID)")
            #expect(check.rows.count == 1)
            #expect(try await adapter.table("Person", where: "personID eq 1").rows.first?.lastName == .string("Samsonite"))
            // Deleting the detail then the master in one apply: deletes run in reverse table order.
            try people.deleteRow(ada)
            try links.deleteRow(try #require(links.rows.first?.id))
            var again = [people, links]
            #expect(try await adapter.applyChanges(&again).succeeded)
            #expect(again[0][ada] == nil && again[1].rows.isEmpty)
            #expect(try await adapter.table("Person", where: "personID eq \(personID)").rows.isEmpty)
        }
    }

    @Test("Conflicts expose mine, original and server, and each resolution settles them", arguments: Backend.allCases)
    func conflicts(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            var mine = try await adapter.table("Person", where: "personID ge 2 and personID le 4")
            var theirs = try await adapter.table("Person", where: "personID ge 2 and personID le 4")
            for row in theirs.rows {
                try theirs.update(row.id) { try $0.set("lastName", to: "Theirs\(row.personID!.integerValue!)") }
            }
            #expect(try await adapter.applyChanges(&theirs).succeeded)
            let ids = mine.sorted(by: "personID").map(\.id)
            for id in ids {
                try mine.update(id) { row in
                    try row.set("lastName", to: "Mine")
                    try row.set("ssn", to: "000")
                }
            }
            let summary = try await adapter.applyChanges(&mine, mode: .independent)
            #expect(summary.conflicts == 3)
            let conflict = try #require(mine[ids[0]]?.conflict)
            #expect(conflict.mine["lastName"] == .string("Mine"))
            #expect(conflict.original["lastName"] == .string("Rodríguez"))
            #expect(conflict.server?["lastName"] == .string("Theirs2"))
            #expect(conflict.changedOnServer == ["lastName"])
            #expect(mine[ids[0]]?.lastName == .string("Mine"), "a conflicting row keeps its edits")

            try mine.resolveConflict(of: ids[0], .keepMine)
            try mine.resolveConflict(of: ids[1], .takeServer)
            try mine.resolveConflict(of: ids[2], .merge(keepingMine: ["ssn"]))
            #expect(mine.conflicts.isEmpty)
            #expect(mine[ids[1]]?.state == .unchanged && mine[ids[1]]?.lastName == .string("Theirs3"))
            #expect(mine[ids[2]]?.changedFields == ["ssn"])
            #expect(try await adapter.applyChanges(&mine).succeeded)
            let stored = try await adapter.table("Person", where: "personID ge 2 and personID le 4", orderBy: "personID")
            #expect(stored.rows.map(\.lastName) == [.string("Mine"), .string("Theirs3"), .string("Theirs4")])
            #expect(stored.rows.map(\.ssn) == [.string("000"), .string("335578462"), .string("000")])

            // A row deleted on the server: taking the server's side drops it, keeping mine inserts it anew.
            var created = try await adapter.table("Car", top: 0)
            try created.addRow(["make": "Short", "model": "Lived"])
            try created.addRow(["make": "Phoenix", "model": "Again"])
            try await adapter.applyChanges(&created)
            var deleter = try await adapter.table("Car", where: "make eq 'Short' or make eq 'Phoenix'")
            for row in deleter.rows { try deleter.deleteRow(row.id) }
            try await adapter.applyChanges(&deleter)
            for row in created.rows { try created.update(row.id) { try $0.set("model", to: "Edited") } }
            #expect(try await adapter.applyChanges(&created, mode: .independent).conflicts == 2)
            let short = try #require(created.row(where: "make", is: .string("Short")))
            let phoenix = try #require(created.row(where: "make", is: .string("Phoenix")))
            #expect(short.conflict?.server == nil)
            try created.resolveConflict(of: short.id, .takeServer)
            try created.resolveConflict(of: phoenix.id, .keepMine)
            #expect(created.rows.count == 1 && created.rows[0].state == .added)
            #expect(try await adapter.applyChanges(&created).succeeded)
            #expect(try await adapter.table("Car", where: "make eq 'Phoenix'").rows.first?.model == .string("Edited"))
        }
    }

    @Test("All-or-nothing keeps every edit when one change fails; independent stores the rest", arguments: Backend.allCases)
    func modes(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            var people = try await adapter.table("Person", where: "personID eq 5")
            var links = try await adapter.table("PersonCar", top: 0)
            let scott = try #require(people.rows.first?.id)
            try people.update(scott) { try $0.set("ssn", to: "555") }
            let broken = try links.addRow(["personID": 999_999, "carID": 1])
            var tables = [people, links]
            let all = try await adapter.applyChanges(&tables)
            #expect(all.failed == 2)
            #expect(tables[0][scott]?.state == .modified && tables[0][scott]?.error != nil)
            #expect(tables[1][broken]?.error?.message.contains("relationship") == true)
            #expect(try await adapter.table("Person", where: "personID eq 5").rows.first?.ssn == .null)

            let independent = try await adapter.applyChanges(&tables, mode: .independent)
            #expect(independent.applied == 1 && independent.failed == 1)
            #expect(tables[0][scott]?.state == .unchanged && tables[0][scott]?.error == nil)
            #expect(tables[1][broken]?.state == .added && tables[1][broken]?.error != nil)
            #expect(try await adapter.table("Person", where: "personID eq 5").rows.first?.ssn == .string("555"))
        }
    }

    @Test("A briefcase keeps pending changes across a save and load, and they apply afterwards", arguments: Backend.allCases)
    func briefcase(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            var setup = try await adapter.table("Person", top: 0)
            try setup.addRow(["firstName": "Temp", "lastName": "Temp"])
            try await adapter.applyChanges(&setup)
            var people = try await adapter.table("Person", where: "personID le 2 or lastName eq 'Temp'")
            let ids = people.sorted(by: "personID").map(\.id)
            #expect(ids.count == 3)
            try people.update(ids[0]) { try $0.set("ssn", to: "999") }
            try people.deleteRow(ids[2])
            let added = try people.addRow(["firstName": "Offline", "lastName": "Worker"])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Briefcase(tables: [people], properties: ["user": "ann", "note": "Ünïcode ✓"]).write(to: file)

            let loaded = try Briefcase(contentsOf: file)
            #expect(loaded.properties == ["user": "ann", "note": "Ünïcode ✓"])
            var restored = try #require(loaded["Person"])
            #expect(restored.fields == people.fields)
            #expect(restored[ids[0]]?.state == .modified && restored[ids[0]]?.originalValue(for: "ssn") == .string("543872934"))
            #expect(restored[ids[2]]?.state == .deleted)
            #expect(restored[added]?.state == .added && restored[added]?.personID == .int32(-1))
            #expect(try restored.addRow(["firstName": "Next", "lastName": "One"]) != added)
            #expect(restored.rows(.added).map(\.personID) == [.int32(-1), .int32(-2)], "temporary keys continue after loading")
            let summary = try await adapter.applyChanges(&restored)
            #expect(summary.succeeded, "\(summary.response.results.map { $0.message ?? "" })")
            let stored = try await adapter.table("Person", where: "personID le 2 or lastName eq 'Temp' or lastName eq 'Worker' or lastName eq 'One'",
                                                 orderBy: "personID")
            #expect(stored.rows.count == 4)
            #expect(stored.rows[0].ssn == .string("999"))
        }
    }

    /// Records what handlers saw; main-actor state, as a screen's would be.
    @MainActor final class Screen {
        var events: [String] = []
    }

    /// Starts a request from an actor of its own: handlers run on the main actor all the same.
    actor Loader {
        func load(_ request: AsyncRequest<DataTable>) async -> [String] {
            let screen = Screen()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                request.onProgress { _ in MainActor.assertIsolated("progress off the main actor") }
                request.onCompletion { table in
                    MainActor.assertIsolated("completion off the main actor")
                    screen.events.append("rows \(table.rows.count)")
                    done.resume()
                }
                request.onFailure { _ in done.resume() }
                request.start()
            }
            return await screen.events
        }
    }

    @Test("Asynchronous requests: configured before start, handlers on the main actor, cancel, await", arguments: Backend.allCases)
    func asyncRequests(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            let request = adapter.tableRequest("Car", orderBy: "make")
            request.context = "Retrieving cars"
            #expect(request.state == .ready)
            let events = await Loader().load(request)
            #expect(events.count == 1 && events[0].hasPrefix("rows "))
            #expect(request.state == .finished)
            #expect(request.progress?.completedBytes ?? 0 > 0)
            #expect(request.context as? String == "Retrieving cars")
            #expect(try await request.value.rows.count == Int(events[0].dropFirst(5)))

            let cancelled = adapter.tableRequest(sql: "SELECT carID FROM Car")
            cancelled.cancel()
            #expect(cancelled.state == .cancelled)
            do {
                _ = try await cancelled.value
                Issue.record("a cancelled request produced a value")
            } catch {
                #expect((error as? StrataError)?.kind == .cancelled)
            }
            let awaited = try await adapter.tablesRequest(["Person", "Car"]).value
            #expect(awaited.map(\.name) == ["Person", "Car"])
            var changed = try await adapter.table("Person", where: "personID eq 6")
            try changed.update(changed.rows[0].id) { try $0.set("ssn", to: "666") }
            let applied = try await adapter.applyChangesRequest([changed]).value
            #expect(applied.summary.succeeded && !applied.tables[0].hasChanges)
        }
    }
}
