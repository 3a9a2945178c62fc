import Foundation
@testable import StrataClient
import StrataCore
import Testing

/// The replica's state on its own (no server): what a reopen rebuilds from the snapshot and the
/// journal, how edits merge into pending changes, and what a changed definition does.
@Suite("Replica state")
struct ReplicaStateTests {
    static let fields = [
        DataTableField(name: "id", type: .int32, required: true, key: true, serverGenerated: true),
        DataTableField(name: "name", type: .string),
        DataTableField(name: "price", type: .int32),
    ]

    /// An adapter for a server that is never contacted.
    static let adapter = RemoteDataAdapter(connection: Connection(baseURL: URL(string: "http://127.0.0.1:9/")!), service: "shop")

    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("replica-state-\(UUID().uuidString)")
    }

    private func downloaded(_ directory: URL, tables: [ReplicaTable] = [ReplicaTable("Item")]) async throws -> Replica {
        let replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: tables)
        try await replica.commit([.replace(table: "Item", fields: Self.fields, rows: (1 ... 3).map { [.int32(Int32($0)), .string("item \($0)"), .int32(Int32($0) * 10)] },
                                           token: "t1")], origin: .pull)
        return replica
    }

    private func snapshot(_ replica: Replica) async throws -> [[ODataValue]] {
        try await replica.rows("Item").map(\.values)
    }

    @Test("After every call, a copy of the directory (a crash at that instant) reopens to exactly the state the call left")
    func crashAtEveryCall() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = try await downloaded(directory)
        var steps: [@Sendable (Replica) async throws -> Void] = [
            { try await $0.insert(into: "Item", ["name": .string("new"), "price": .int32(5)]) },
            { try await $0.update("Item", key: ["id": .int32(1)], ["price": .int32(11)]) },
            { try await $0.update("Item", key: ["id": .int32(1)], ["name": .string("first")]) },
            { try await $0.delete(from: "Item", key: ["id": .int32(2)]) },
            { try await $0.update("Item", key: ["id": .int32(-1)], ["price": .int32(6)]) },
            { _ = try await $0.seal() },
            { try await $0.update("Item", key: ["id": .int32(1)], ["price": .int32(12)]) },
            { try await $0.commit([.upsert(table: "Item", rows: [[.int32(3), .string("server"), .int32(33)]]), .token(table: "Item", "t2")], origin: .pull) },
        ]
        steps.append { try await $0.delete(from: "Item", key: ["id": .int32(-1)]) }
        for (index, step) in steps.enumerated() {
            try await step(replica)
            let expected = try await snapshot(replica)
            let pending = await replica.pendingChanges
            let copy = folder()
            defer { try? FileManager.default.removeItem(at: copy) }
            try FileManager.default.copyItem(at: directory, to: copy)
            try? FileManager.default.removeItem(at: copy.appendingPathComponent(ReplicaFiles.lockName))
            let reopened = try await Replica.open(at: copy, adapter: Self.adapter, tables: [ReplicaTable("Item")])
            #expect(try await snapshot(reopened) == expected, "after step \(index)")
            #expect(await reopened.pendingChanges == pending, "after step \(index)")
            #expect(await reopened.state.sealed == replica.state.sealed, "after step \(index)")
            await reopened.close()
        }
        // Merged per row until sealed: the insert (with its later price), the update of 1 (both
        // fields, with the values from before its first edit), the delete of 2. After sealing, an
        // edit of a row in the batch is a change of its own — 1's new price, and the delete of the
        // new row (the server may have it by now).
        let pending = await replica.pendingChanges
        #expect(pending.map(\.kind) == [.insert, .update, .delete, .update, .delete])
        #expect(pending[0].values == ["name": .string("new"), "price": .int32(6)])
        #expect(pending[1].values == ["price": .int32(11), "name": .string("first")])
        #expect(await replica.state.pending[pending[1].id]?.change.original == ["price": .int32(10), "name": .string("item 1")])
        #expect(pending.map(\.isSending) == [true, true, true, false, false])
        #expect(try await replica.row("Item", key: ["id": .int32(-1)]) == nil)
        await replica.close()
    }

    @Test("Reopened with another filter a table forgets its rows and keeps its edits; a dropped table goes with its edits")
    func definitionChanges() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        var replica = try await downloaded(directory)
        try await replica.update("Item", key: ["id": .int32(1)], ["price": .int32(99)])
        await replica.close()

        replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", where: "price gt 10")])
        #expect(try await replica.rows("Item").isEmpty, "another query's rows are gone until the next download")
        #expect(await replica.state.tables["Item"]?.token == nil)
        #expect(await replica.syncStatus.pendingCount == 1)
        await replica.close()

        replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Other")])
        #expect(await replica.syncStatus.pendingCount == 0)
        await #expect { try await replica.rows("Item") } throws: { ($0 as? ReplicaError)?.kind == .unknownName }
        await replica.close()
    }

    @Test("A table with changes in the batch being sent cannot be dropped; local edits are checked")
    func refusals() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = try await downloaded(directory)
        await #expect { try await replica.update("Item", key: ["id": .int32(1)], ["nope": .int32(1)]) } throws: { ($0 as? ReplicaError)?.kind == .unknownName }
        await #expect { try await replica.update("Item", key: ["id": .int32(1)], ["price": .string("x")]) } throws: { ($0 as? ReplicaError)?.kind == .invalidChange }
        await #expect { try await replica.update("Item", key: ["id": .int32(9)], ["price": .int32(1)]) } throws: { ($0 as? ReplicaError)?.kind == .invalidChange }
        await #expect { try await replica.update("Item", key: ["id": .int32(1)], ["id": .int32(7)]) } throws: { ($0 as? ReplicaError)?.kind == .invalidChange }
        try await replica.update("Item", key: ["id": .int32(1)], ["price": .int32(99)])
        _ = try await replica.seal()
        await replica.close()
        await #expect { try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Other")]) } throws: {
            ($0 as? ReplicaError)?.kind == .invalidChange
        }
        let again = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")])
        #expect(await again.state.sealed != nil)
        await again.close()
    }
}
