import Foundation
import NIOConcurrencyHelpers
import Observation
@testable import StrataClient
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The observable store over a replica: queries that follow local edits and pulls, and the
/// replica's events for code that is not SwiftUI.
@Suite("Replica: observable store")
struct ReplicaStoreTests {
    @Test("A query follows a local edit, and a pulled transaction of three rows is one update of its rows",
          arguments: Backend.allCases)
    func queries(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            let replica = try await fixture.open()
            try await replica.sync()
            let store = await ReplicaStore(replica: replica)
            let query = await store.query("Person", orderBy: "firstName") { ($0["personID"]?.integerValue ?? 0) <= 20 }
            try await Self.until { await query.rows.count == 20 }
            #expect(await query.rows.map { $0["firstName"]?.stringValue ?? "" } == (await query.rows.map { $0["firstName"]?.stringValue ?? "" }).sorted())

            // A local edit: the row moves to its place in the order.
            try await replica.update("Person", key: ["personID": .int32(4)], ["firstName": .string("AAAA first")])
            try await Self.until { await query.rows.first?["personID"] == .int32(4) }
            #expect(await query.rows.first?.hasPendingChanges == true)
            try await replica.sync()
            try await Self.until { await query.rows.first?.hasPendingChanges == false }

            // Three rows changed by another client in one transaction reach the query as one update.
            var others = try await fixture.adapter.table("Person", where: "personID ge 5 and personID le 7")
            for row in others.rows { try others.update(row.id) { try $0.set("lastName", to: "Together") } }
            #expect(try await fixture.adapter.applyChanges(&others).succeeded)
            let updates = NIOLockedValueBox(0)
            await Self.observe(query, count: updates)
            let events = await replica.events()
            try await replica.sync()
            try await Self.until { await query.rows.filter { $0["lastName"] == .string("Together") }.count == 3 }
            #expect(updates.withLockedValue { $0 } == 1, "one update of the query's rows for the pulled transaction")
            var changed: Set<String> = []
            for await event in events {
                if case .changed(let change) = event, change.origin == .pull { changed.formUnion(change.tables) }
                if changed.contains("Person") { break }
            }
            #expect(changed.contains("Person"))
            await store.stop()
            await replica.close()
        }
    }

    /// Counts each change of the query's rows (re-registering after each, as SwiftUI does).
    @MainActor
    static func observe(_ query: ReplicaQuery, count: NIOLockedValueBox<Int>) {
        withObservationTracking {
            _ = query.rows
        } onChange: {
            count.withLockedValue { $0 += 1 }
            Task { @MainActor in observe(query, count: count) }
        }
    }

    /// Waits for `condition`; the bound only ends a wait that would never end. 30 s: a live
    /// stream's reconnect and first event once took over 10 s with the full suite on two cores.
    static func until(_ condition: @Sendable () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the condition did not hold within 30 s", sourceLocation: sourceLocation)
    }
}

/// The replica following the server's change stream.
@Suite("Replica: live")
struct ReplicaLiveTests {
    @Test("Live: another client's commit arrives without a sync; status says connected; local edits still go with sync",
          arguments: Backend.allCases)
    func live(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            let replica = try await fixture.open([ReplicaTable("Person", where: "lastName ne 'Away'")])
            try await replica.sync()
            await replica.startLive(retry: .milliseconds(200))
            try await ReplicaStoreTests.until { await replica.syncStatus.connected }
            try await fixture.serverUpdate("Person", keyField: "personID", 9, set: "firstName", to: .string("Live"))
            try await ReplicaStoreTests.until { (try? await replica.row("Person", key: ["personID": .int32(9)])?["firstName"]) == .string("Live") }
            // A row that leaves the filter leaves live too.
            try await fixture.serverUpdate("Person", keyField: "personID", 10, set: "lastName", to: .string("Away"))
            try await ReplicaStoreTests.until { (try? await replica.row("Person", key: ["personID": .int32(10)])) == .some(nil) }

            try await replica.update("Person", key: ["personID": .int32(11)], ["firstName": .string("Pushed")])
            let report = try await replica.sync()
            #expect(report.applied == 1 && report.received == 0, "a live table is not pulled: \(report)")
            #expect(try await fixture.serverRows("Person", where: "personID eq 11").first?["firstName"] == .string("Pushed"))
            await replica.stopLive()
            #expect(await replica.syncStatus.connected == false)
            await replica.close()
        }
    }
}
