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
import Testing

/// Two replicas that edit offline converge, whichever syncs first, with conflicts settled and
/// reported as each table's policy says.
@Suite("Replica: conflicts and convergence")
struct ReplicaConflictTests {
    static let cases: [(Backend, ConflictPolicy)] = Backend.allCases.flatMap { backend in ConflictPolicy.allCases.map { (backend, $0) } }

    @Test("Same row and different rows edited offline by two replicas, synced in both orders: they converge", arguments: cases)
    func converge(_ backend: Backend, _ policy: ConflictPolicy) async throws {
        try await withLiveServer(backend) { connection in
            let first = ReplicaFixture(connection, name: "first"), second = ReplicaFixture(connection, name: "second")
            defer { first.remove(); second.remove() }
            let tables = [ReplicaTable("Person", conflicts: policy)]
            let a = try await first.open(tables), b = try await second.open(tables)
            try await a.sync()
            try await b.sync()
            // Rows 7-9: a syncs first; rows 10-12: b does.
            for (early, late, base) in [(a, b, 7), (b, a, 10)] {
                try await early.update("Person", key: ["personID": .int32(Int32(base))], ["firstName": .string("Early\(base)")])
                try await late.update("Person", key: ["personID": .int32(Int32(base + 1))], ["firstName": .string("Late\(base + 1)")])
                try await early.update("Person", key: ["personID": .int32(Int32(base + 2))], ["lastName": .string("EarlyLast")])
                try await late.update("Person", key: ["personID": .int32(Int32(base + 2))], ["lastName": .string("LateLast"), "firstName": .string("LateFirst")])
                let original = try #require(try await early.row("Person", key: ["personID": .int32(Int32(base + 2))]))

                let earlyReport = try await early.sync()
                #expect(earlyReport.conflicts.isEmpty && earlyReport.applied == 2, "\(earlyReport)")
                let lateReport = try await late.sync()
                let conflict = try #require(lateReport.conflicts.first, "\(lateReport)")
                #expect(lateReport.conflicts.count == 1 && conflict.key["personID"]?.integerValue == Int64(base + 2))
                #expect(conflict.serverRow?["lastName"] == .string("EarlyLast"))
                let contested = ["personID": ODataValue.int32(Int32(base + 2))]
                switch policy {
                case .serverWins:
                    #expect(conflict.outcome == .serverKept)
                case .clientWins:
                    #expect(conflict.outcome == .localResent)
                case .mergeFields:
                    #expect(conflict.outcome == .merged(serverKept: ["lastName"]))
                case .ask:
                    #expect(conflict.outcome == .waiting)
                    let waiting = await late.waitingConflicts
                    #expect(waiting.map(\.id) == [conflict.id])
                    #expect(try await late.row("Person", key: contested)?["lastName"] == .string("LateLast"), "the local edit stays visible")
                    try await late.resolve(waiting[0], .keepLocal)
                }
                // Everyone syncs until nothing moves.
                for replica in [late, early, late, early] { try await replica.sync() }
                let expected: (first: ODataValue?, last: ODataValue) = switch policy {
                case .serverWins: (original["firstName"], .string("EarlyLast"))
                case .clientWins, .ask: (.string("LateFirst"), .string("LateLast"))
                case .mergeFields: (.string("LateFirst"), .string("EarlyLast"))
                }
                let server = try #require(try await first.serverRows("Person", where: "personID eq \(base + 2)").first)
                #expect(server["firstName"] == expected.first && server["lastName"] == expected.last, "\(policy): \(server.values)")
                let latePending = await late.syncStatus.pendingCount, earlyPending = await early.syncStatus.pendingCount
                #expect(latePending == 0 && earlyPending == 0)
            }
            let rowsA = try await a.rows("Person").map(\.values), rowsB = try await b.rows("Person").map(\.values)
            #expect(rowsA == rowsB, "the replicas converge")
            let server = try await first.adapter.table("Person").rows.map(\.values)
            #expect(Set(rowsA.map { "\($0)" }) == Set(server.map { "\($0)" }), "and equal the server")
            await a.close()
            await b.close()
        }
    }

    @Test("A change the server refuses stays queued with the reason; a row deleted on the server waits under ask",
          arguments: Backend.allCases)
    func refusedAndDeleted(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let fixture = ReplicaFixture(connection)
            defer { fixture.remove() }
            let replica = try await fixture.open([ReplicaTable("Person", conflicts: .ask), ReplicaTable("PersonCar")])
            try await replica.sync()
            // A link to a car that does not exist: the foreign key refuses it.
            try await replica.insert(into: "PersonCar", ["personID": .int32(1), "carID": .int32(999_999)])
            let refused = try await replica.sync()
            #expect(refused.failed == 1, "\(refused)")
            #expect(await replica.syncStatus.pendingCount == 1, "kept, to fix or drop")
            let failed = try #require(await replica.pendingChanges.first)
            #expect(failed.error?.isEmpty == false && failed.table == "PersonCar" && !failed.isSending)
            // Reverting the row drops the change: the link disappears, nothing is left to send.
            try await replica.revert("PersonCar", key: failed.key)
            #expect(await replica.syncStatus.pendingCount == 0)
            #expect(try await replica.row("PersonCar", key: failed.key) == nil)

            // Another client deletes a row this replica edits.
            let inserted = try await fixture.adapter.table("Person", where: "personID eq 1")
            var fresh = inserted
            _ = try fresh.addRow(["firstName": "Doomed", "lastName": "Row"])
            _ = try await fixture.adapter.applyChanges(&fresh)
            try await replica.sync()
            let doomed = try #require(try await replica.rows("Person").first { $0["firstName"] == .string("Doomed") })
            try await replica.update("Person", key: doomed.key, ["lastName": .string("Edited")])
            var server = try await fixture.adapter.table("Person", where: "firstName eq 'Doomed'")
            try server.deleteRow(try #require(server.rows.first).id)
            _ = try await fixture.adapter.applyChanges(&server)
            let report = try await replica.sync()
            #expect(report.conflicts.first?.outcome == .waiting && report.conflicts.first?.serverRow == nil, "\(report)")
            let waiting = try #require(await replica.waitingConflicts.first)
            #expect(waiting.localValues["lastName"] == .string("Edited"))
            // Keeping the local version inserts the row again.
            try await replica.resolve(waiting, .keepLocal)
            try await replica.sync()
            let back = try await fixture.serverRows("Person", where: "firstName eq 'Doomed'")
            #expect(back.count == 1 && back.first?["lastName"] == .string("Edited"))
            await replica.close()
        }
    }
}
