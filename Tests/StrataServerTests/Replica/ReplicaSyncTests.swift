import Foundation
@testable import StrataClient
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Synchronization
import Testing

/// The offline replica against a real server over a socket, on both databases: download, local
/// edits that survive a reopen, pushes applied once however they are cut off, pulls, filters, 410.
@Suite("Replica: sync")
struct ReplicaSyncTests {
    @Test("First sync downloads; local edits show at once, survive a reopen, and are sent once; others' changes arrive",
          arguments: Backend.allCases)
    func roundTrip(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            var replica = try await fixture.open()
            let events = await replica.events()
            let first = try await replica.sync()
            await replica.close()
            var downloads: [String] = []
            for await event in events {
                if case .status(let status) = event, let download = status.download, downloads.last != download.table {
                    downloads.append(download.table)
                }
            }
            #expect(downloads == ["Person", "Car"], "the status names each table while it downloads")
            replica = try await fixture.open()
            let people = try await fixture.adapter.table("Person").rows.count
            #expect(try await replica.rows("Person").count == people)
            #expect(first.reloaded == ["Person", "Car"])

            // Offline edits: a new master and its detail by temporary key, an update.
            let ada = try await replica.insert(into: "Person", ["firstName": .string("Ada"), "lastName": .string("Replica")])
            let temporary = try #require(ada["personID"]?.integerValue)
            #expect(temporary < 0)
            try await replica.update("Person", key: ["personID": .int32(1)], ["firstName": .string("Offline")])
            #expect(try await replica.row("Person", key: ["personID": .int32(1)])?["firstName"] == .string("Offline"))
            #expect(try await replica.row("Person", key: ada)?.hasPendingChanges == true)
            #expect(await replica.syncStatus.pendingCount == 2)

            // Closed (as if killed: every call flushed its journal record) and opened again.
            await replica.close()
            replica = try await fixture.open()
            #expect(try await replica.row("Person", key: ["personID": .int32(1)])?["firstName"] == .string("Offline"))
            #expect(await replica.syncStatus.pendingCount == 2)

            let report = try await replica.sync()
            #expect(report.sent == 2 && report.applied == 2, "\(report)")
            #expect(await replica.syncStatus.pendingCount == 0)
            let stored = try await fixture.serverRows("Person", where: "lastName eq 'Replica'")
            #expect(stored.count == 1)
            let realKey = try #require(stored.first?["personID"])
            #expect(try await replica.row("Person", key: ["personID": realKey])?["firstName"] == .string("Ada"))
            #expect(try await replica.row("Person", key: ada) == nil, "the temporary key is gone")
            #expect(try await fixture.serverRows("Person", where: "personID eq 1").first?["firstName"] == .string("Offline"))

            // Another client's change arrives with the next sync; nothing is sent twice.
            try await fixture.serverUpdate("Person", keyField: "personID", 2, set: "lastName", to: .string("Elsewhere"))
            let again = try await replica.sync()
            #expect(again.sent == 0 && again.received >= 1 && again.reloaded.isEmpty, "\(again)")
            #expect(try await replica.row("Person", key: ["personID": .int32(2)])?["lastName"] == .string("Elsewhere"))
            #expect(try await fixture.serverRows("Person", where: "lastName eq 'Replica'").count == 1)
            await replica.close()
        }
    }

    @Test("The model's foreign keys are indexed in the local tables, and SQL joins them with local edits included",
          arguments: Backend.allCases)
    func foreignKeysAndJoins(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            let replica = try await fixture.open([ReplicaTable("Person"), ReplicaTable("Car"), ReplicaTable("PersonCar")])
            try await replica.sync()
            let database = await replica.database
            let statement = try database.connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'PersonCar' ORDER BY name")
            var indexes: [String] = []
            while try statement.step() { indexes.append(statement.text(0) ?? "") }
            statement.finalize()
            #expect(indexes.contains("strata.fk.PersonCar.carID") && indexes.contains("strata.fk.PersonCar.personID"), "\(indexes)")

            let join = "SELECT count(*) FROM PersonCar pc JOIN Person p ON p.personID = pc.personID JOIN Car c ON c.carID = pc.carID"
            let links = try await fixture.adapter.table("PersonCar").rows.count
            #expect(try await replica.query(join).rows == [[.int64(Int64(links))]])
            // A local link to a new person counts at once, before it is sent.
            let ada = try await replica.insert(into: "Person", ["firstName": .string("Ada"), "lastName": .string("Joined")])
            try await replica.insert(into: "PersonCar", ["personID": ada["personID"]!, "carID": .int32(1)])
            #expect(try await replica.query(join + " WHERE p.lastName = ?", [.string("Joined")]).rows == [[.int64(1)]])
            await replica.close()
        }
    }

    @Test("A push cut off before sending, after the server committed but before the answer came, or before the pull, is applied once",
          arguments: Backend.allCases)
    func interruptedPush(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            var replica = try await fixture.open()
            try await replica.sync()

            // Sealed (on disk, with its key), then the process stops before sending.
            try await replica.insert(into: "Person", ["firstName": .string("Before"), "lastName": .string("Cut")])
            _ = try #require(try await replica.seal())
            await replica.close()
            replica = try await fixture.open()
            let resent = try await replica.sync()
            #expect(resent.applied == 1 && !resent.replayed)
            #expect(try await fixture.serverRows("Person", where: "firstName eq 'Before'").count == 1)

            // Sealed and sent; the server commits, the answer is lost, the process stops.
            try await replica.insert(into: "Person", ["firstName": .string("After"), "lastName": .string("Cut")])
            try await replica.update("Person", key: ["personID": .int32(3)], ["firstName": .string("AlsoAfter")])
            let (sealed, delta) = try #require(try await replica.seal())
            let types = await replica.fieldTypes()
            _ = try await fixture.adapter.sendDelta(delta.jsonBytes, delta: delta, idempotencyKey: IdempotencyKey(sealed.key)!,
                                                    fieldTypes: { types[$0] })
            #expect(try await fixture.serverRows("Person", where: "firstName eq 'After'").count == 1, "the server committed")
            // A change made after the seal is not in the sealed batch; the same sync sends it next.
            try await replica.insert(into: "Person", ["firstName": .string("Queued"), "lastName": .string("Cut")])
            await replica.close()
            replica = try await fixture.open()
            #expect(await replica.syncStatus.pendingCount == 3, "the replica does not know it was applied")
            let replayed = try await replica.sync()
            #expect(replayed.replayed && replayed.sent == 3 && replayed.applied == 3, "\(replayed)")
            #expect(await replica.syncStatus.pendingCount == 0, "nothing left queued after a sync that reached the server")
            #expect(try await fixture.serverRows("Person", where: "firstName eq 'After'").count == 1, "applied once")
            #expect(try await fixture.serverRows("Person", where: "firstName eq 'Queued'").count == 1)
            #expect(try await replica.rows("Person").filter { $0["firstName"] == .string("After") }.count == 1)
            #expect(try await replica.rows("Person").allSatisfy { ($0["personID"]?.integerValue ?? -1) > 0 })

            // Pushed and answered, then stopped before the pull: the next sync pulls, sends nothing.
            try await replica.insert(into: "Person", ["firstName": .string("BeforePull"), "lastName": .string("Cut")])
            #expect(try await replica.push().applied == 1)
            await replica.close()
            replica = try await fixture.open()
            let pulled = try await replica.sync()
            #expect(pulled.sent == 0 && pulled.received >= 1, "\(pulled)")
            #expect(try await fixture.serverRows("Person", where: "firstName eq 'BeforePull'").count == 1)
            #expect(try await replica.rows("Person").filter { $0["firstName"] == .string("BeforePull") }.count == 1)
            await replica.close()
        }
    }

    @Test("A row that leaves the user's row filter (its owner changed) leaves that user's replica and enters the new owner's",
          arguments: Backend.allCases)
    func rowFilter(_ backend: Backend) async throws {
        let setup: @Sendable (Administration) async throws -> Void = { admin in
            try await FeedTablesTests.rightsSetup(admin)
            try await admin.grant(role: "owner", service: FeedFixtures.serviceName, table: "Item", actions: [.insert, .update],
                                  rowFilter: "owner eq $claims.sub")
        }
        try await withLiveServer(backend, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }, setup: setup,
                                 account: "ann") { ann in
            let base = ann.baseURL
            let bob = Connection(baseURL: base, configuration: ConnectionConfiguration(defaultHeaders: [
                "Accept": "application/json", "Authorization": "Basic " + Data("bob:\(TestAccounts.password("bob"))".utf8).base64EncodedString(),
            ]))
            let annFixture = ReplicaFixture(ann, name: "ann"), bobFixture = ReplicaFixture(bob, name: "bob")
            defer { annFixture.remove(); bobFixture.remove() }
            let tables = [ReplicaTable("Item")]
            let annReplica = try await Replica.open(at: annFixture.directory, adapter: RemoteDataAdapter(connection: ann, service: "feed"), tables: tables)
            let bobReplica = try await Replica.open(at: bobFixture.directory, adapter: RemoteDataAdapter(connection: bob, service: "feed"), tables: tables)
            try await annReplica.sync()
            try await bobReplica.sync()
            #expect(try await annReplica.rows("Item").map { $0["owner"] } == [.string("ann"), .string("ann")])
            #expect(try await annReplica.fields("Item").contains { $0.name == "secret" } == false, "a hidden column is not replicated")

            // An administrator gives Ann's lamp to Bob: it leaves Ann's rights.
            let admin = Connection(baseURL: base, configuration: ConnectionConfiguration(defaultHeaders: [
                "Accept": "application/json", "Authorization": AdministratorTestClient.authorization,
            ]))
            var items = try await RemoteDataAdapter(connection: admin, service: "feed").table("Item", where: "id eq 1")
            try items.update(try #require(items.rows.first).id) { try $0.set("owner", to: "bob") }
            #expect(try await RemoteDataAdapter(connection: admin, service: "feed").applyChanges(&items).succeeded)
            let pulled = try await annReplica.sync()
            #expect(pulled.removed == 1, "\(pulled)")
            #expect(try await annReplica.row("Item", key: ["id": .int32(1)]) == nil, "gone from Ann's replica")
            #expect(try await annReplica.rows("Item").count == 1)
            let received = try await bobReplica.sync()
            #expect(received.received == 1, "\(received)")
            #expect(try await bobReplica.row("Item", key: ["id": .int32(1)])?["owner"] == .string("bob"))
            await annReplica.close()
            await bobReplica.close()
        }
    }

    @Test("A row that leaves the table's filter leaves the replica; a 410 token, or rows of another shape, reload and keep unsent changes",
          arguments: Backend.allCases)
    func filterAndGone(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            let replica = try await fixture.open([ReplicaTable("Person", where: "lastName ne 'Moved'")])
            try await replica.sync()
            #expect(try await replica.row("Person", key: ["personID": .int32(5)]) != nil)
            try await fixture.serverUpdate("Person", keyField: "personID", 5, set: "lastName", to: .string("Moved"))
            let moved = try await replica.sync()
            #expect(moved.removed == 1, "\(moved)")
            #expect(try await replica.row("Person", key: ["personID": .int32(5)]) == nil)

            // An unsent edit, then a token the server refuses (410): the table is downloaded again
            // and the edit is still there, and then sent.
            try await replica.update("Person", key: ["personID": .int32(6)], ["firstName": .string("Kept")])
            try await replica.commit([.token(table: "Person", "AAAAdamaged")], origin: .pull)
            let reloaded = try await replica.sync()
            #expect(reloaded.reloaded == ["Person"] && reloaded.applied == 1, "\(reloaded)")
            #expect(try await replica.row("Person", key: ["personID": .int32(6)])?["firstName"] == .string("Kept"))
            #expect(try await fixture.serverRows("Person", where: "personID eq 6").first?["firstName"] == .string("Kept"))

            // Rows of the server's shape that do not fit the replica's (as after a model change):
            // the table is downloaded again instead of taking rows with other fields.
            let fields = try await replica.fields("Person"), token = await replica.state.tables["Person"]?.token
            try await replica.commit([.replace(table: "Person", fields: Array(fields.prefix(2)), rows: [], token: token)], origin: .pull)
            try await fixture.serverUpdate("Person", keyField: "personID", 7, set: "firstName", to: .string("Reshaped"))
            let reshaped = try await replica.sync()
            #expect(reshaped.reloaded == ["Person"], "\(reshaped)")
            #expect(try await replica.fields("Person") == fields)
            #expect(try await replica.row("Person", key: ["personID": .int32(7)])?["firstName"] == .string("Reshaped"))
            await replica.close()
        }
    }
}

/// A push that meets the same batch still being applied by an earlier attempt waits for it.
@Suite("Replica: a batch still being applied")
struct ReplicaBusyBatchTests {
    @Test("A push whose batch the server is still applying from an earlier attempt (409) waits, sends it again and gets that attempt's results")
    func waitsForTheEarlierAttempt() async throws {
        let directory = Mutex<String?>(nil)
        try await withLiveServer(.sqlite, configure: { configuration in directory.withLock { $0 = configuration.dataDirectory } }) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            let replica = try await fixture.open()
            try await replica.sync()
            try await replica.insert(into: "Person", ["firstName": .string("Busy"), "lastName": .string("Batch")])
            let (sealed, delta) = try #require(try await replica.seal())
            let types = await replica.fieldTypes()

            // The service's file is write-locked by another process's transaction (SQLite's locks do
            // not hold between the two SQLite libraries of this process), so the earlier attempt waits
            // inside the server with the batch's key claimed, until the lock goes 2.5 s later.
            let file = try #require(directory.withLock { $0 }) + "/cardealer.sqlite"
            let marker = file + ".locked"
            let script = """
                import sqlite3, sys, time, pathlib
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute("BEGIN IMMEDIATE")
                pathlib.Path(sys.argv[2]).touch()
                time.sleep(2.5)
                c.execute("COMMIT")
                """
            let lock = Task { try await ChildProcess.run("/usr/bin/python3", ["-c", script, file, marker]) }
            for _ in 0 ..< 500 where !FileManager.default.fileExists(atPath: marker) { try await Task.sleep(for: .milliseconds(10)) }
            #expect(FileManager.default.fileExists(atPath: marker), "the locking process did not start")
            let send: @Sendable () async throws -> Void = {
                _ = try await fixture.adapter.sendDelta(delta.jsonBytes, delta: delta, idempotencyKey: IdempotencyKey(sealed.key)!,
                                                        fieldTypes: { types[$0] })
            }
            // Two attempts at once: one holds the batch (blocked on the lock), the other is refused
            // with 409 — from then on the batch is held until the lock goes.
            final class Refused: Sendable { let seen = Mutex(false) }
            let refused = Refused()
            let attempts = (0 ..< 2).map { _ in
                Task {
                    do { try await send() } catch let error as StrataError where error.status == 409 { refused.seen.withLock { $0 = true } } catch {}
                }
            }
            for _ in 0 ..< 300 where !refused.seen.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            #expect(refused.seen.withLock { $0 }, "neither attempt was refused while the other held the batch")
            let report = try await replica.sync()
            let locked = try await lock.value
            #expect(locked.status == 0, "\(locked.errors)")
            for attempt in attempts { _ = await attempt.result }
            #expect(report.replayed && report.applied == 1, "\(report)")
            #expect(try await fixture.serverRows("Person", where: "firstName eq 'Busy'").count == 1, "applied once")
            #expect(await replica.syncStatus.pendingCount == 0)
            await replica.close()
        }
    }
}
