import Foundation
@testable import StrataClient
import StrataCore
import Testing

/// The replica's SQLite database on its own (no server): values of every type read back as
/// written, read-only SQL over the local tables, indexes, a step that fails leaves nothing, a
/// directory of the earlier format is converted, a foreign file is named.
@Suite("Replica database")
struct ReplicaDatabaseTests {
    static let adapter = ReplicaStateTests.adapter
    static let fields = ReplicaStateTests.fields

    private func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("replica-db-\(UUID().uuidString)")
    }

    private static func items(_ count: Int) -> [[ODataValue]] {
        (1 ... count).map { [.int32(Int32($0)), .string("item \($0)"), .int32(Int32($0) * 10)] }
    }

    @Test("Every EDM type reads back as the same value, nulls included; a field name with a quote is one column")
    func everyType() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fields = [DataTableField(name: "id", type: .int32, required: true, key: true)]
            + EDMPrimitiveType.allCases.map { DataTableField(name: "v \($0.rawValue)", type: $0) }
            + [DataTableField(name: #"na"me"#, type: .string)]
        let utc = try #require(ODataDateTime(year: 2009, month: 11, day: 1, hour: 9, minute: 30, second: 5, microsecond: 123_456))
        let sample: [EDMPrimitiveType: ODataValue] = [
            .binary: .binary(Data([0, 1, 2, 255])), .boolean: .boolean(true), .byte: .byte(200), .dateTime: .dateTime(utc),
            .dateTimeOffset: .dateTimeOffset(ODataDateTimeOffset(utc: utc, offsetMinutes: 120)), .decimal: .decimal(Decimal(string: "12345678901234567890.125")!),
            .double: .double(0.1), .guid: .guid(UUID()), .int16: .int16(-300), .int32: .int32(-7), .int64: .int64(1 << 40),
            .sbyte: .sbyte(-5), .single: .single(1.5), .string: .string("ünï'\"code; DROP TABLE x"),
            .time: .time(try #require(ODataTime(hour: 13, minute: 20, second: 5, microsecond: 500_000))),
        ]
        let full: [ODataValue] = [.int32(1)] + EDMPrimitiveType.allCases.map { sample[$0]! } + [.string("quoted")]
        let empty: [ODataValue] = [.int32(2)] + EDMPrimitiveType.allCases.map { $0 == .binary ? .binary(Data()) : .null } + [.null]
        let replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Every")])
        try await replica.commit([.replace(table: "Every", fields: fields, rows: [full, empty], token: "t")], origin: .pull)
        #expect(try await replica.rows("Every").map(\.values) == [full, empty])
        await replica.close()
        let reopened = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Every")])
        #expect(try await reopened.rows("Every").map(\.values) == [full, empty])
        // SQL sees the table columns with their EDM types.
        let result = try await reopened.query(#"SELECT "v Edm.Decimal", "v Edm.DateTime", "na""me", length("v Edm.Binary") FROM Every ORDER BY id"#)
        #expect(result.types == [.decimal, .dateTime, .string, nil])
        #expect(result.rows == [[sample[.decimal]!, sample[.dateTime]!, .string("quoted"), .int64(4)], [.null, .null, .null, .int64(0)]])
        await reopened.close()
    }

    @Test("Read-only SQL joins the local tables with local edits applied; values are bound; writes, Strata's tables and several statements are refused")
    func sqlQueries() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = try await Self.ownersAndThings(directory)
        let join = "SELECT o.name, t.label FROM Thing t JOIN Owner o ON o.ownerID = t.ownerID WHERE o.name = ? ORDER BY t.label"
        #expect(try await replica.query(join, [.string("Ann")]).rows == [[.string("Ann"), .string("lamp")]])
        // A local insert and update show in SQL before they are sent.
        try await replica.insert(into: "Thing", ["ownerID": .int32(1), "label": .string("chair")])
        try await replica.update("Thing", key: ["id": .int32(2)], ["ownerID": .int32(1)])
        let after = try await replica.query(join, [.string("Ann")])
        #expect(after.rows.map { $0[1] } == [.string("chair"), .string("desk"), .string("lamp")])
        #expect(after.tables == ["Owner", "Thing"])
        #expect(after.values(at: 0) == ["name": .string("Ann"), "label": .string("chair")])
        // A value that would be SQL is only a value.
        #expect(try await replica.query(join, [.string("Ann' OR '1'='1")]).rows.isEmpty)

        for refused in ["DELETE FROM Thing", "UPDATE Owner SET name = 'x'", "CREATE TABLE x (a)", #"SELECT * FROM "strata.outbox""#,
                        "SELECT * FROM sqlite_master", "SELECT 1; DELETE FROM Thing", "SELECT * FROM Nope", "SELEC 1"] {
            do {
                _ = try await replica.query(refused)
                Issue.record("\(refused) ran")
            } catch {
                #expect(error.kind == .invalidQuery, "\(refused): \(error)")
            }
        }
        await #expect { try await replica.query(join) } throws: { ($0 as? ReplicaError)?.message.contains("1 parameter") == true }
        #expect(try await replica.count("Thing") == 3, "nothing was deleted")
        await replica.close()
    }

    @Test("Declared indexes are built and used; an index on a field the table does not have is a clear error")
    func indexes() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        var replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", indexes: [["name"]])])
        try await replica.commit([.replace(table: "Item", fields: Self.fields, rows: Self.items(50), token: "t")], origin: .pull)
        let plan = try Self.plan(await replica.database, #"SELECT * FROM "Item" WHERE "name" IS ?"#)
        #expect(plan.contains("strata.index.Item.name"), "\(plan)")
        #expect(try await replica.rows("Item", matching: ["name": .string("item 7")]).map { $0["id"] } == [.int32(7)])
        #expect(try await replica.rows("Item", matching: [:], orderBy: "price", descending: true, limit: 2).map { $0["id"] } == [.int32(50), .int32(49)])
        await #expect { try await replica.rows("Item", matching: ["nope": .int32(1)]) } throws: { ($0 as? ReplicaError)?.kind == .unknownName }
        await #expect { try await replica.rows("Item", matching: ["price": .string("cheap")]) } throws: { ($0 as? ReplicaError)?.kind == .invalidChange }
        await #expect { try await replica.rows("Item", matching: [:], limit: -1) } throws: { ($0 as? ReplicaError)?.kind == .invalidQuery }
        await replica.close()

        // Other indexes at the next open: the old one goes, the new one is built.
        replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", indexes: [["price", "name"]])])
        let names = try Self.indexNames(await replica.database)
        #expect(names == ["strata.index.Item.price,name"])
        await replica.close()
        // Foreign keys from the model: indexed, except one the key or a declared index begins with,
        // and one naming a field the replica does not have; a reload replaces them.
        replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", indexes: [["price", "name"]])])
        try await replica.commit([.foreignKeys(table: "Item", columns: [["name"], ["price"], ["id"], ["hidden"]])], origin: .pull)
        #expect(try Self.indexNames(await replica.database, prefix: "strata.fk.") == ["strata.fk.Item.name"])
        try await replica.commit([.replace(table: "Item", fields: Self.fields, rows: Self.items(5), token: "t2"),
                                  .foreignKeys(table: "Item", columns: [["price", "id"]])], origin: .pull)
        #expect(try Self.indexNames(await replica.database, prefix: "strata.fk.") == ["strata.fk.Item.price,id"])
        #expect(try Self.indexNames(await replica.database) == ["strata.index.Item.price,name"], "declared indexes are made again with the table")
        await replica.close()
        await #expect { try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", indexes: [["colour"]])]) } throws: {
            ($0 as? ReplicaError)?.kind == .unknownName && ($0 as? ReplicaError)?.message.contains("colour") == true
        }
    }

    @Test("A step that fails halfway (a table of another shape that SQLite refuses) leaves the database and the replica as they were")
    func failedStepLeavesNothing() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")])
        try await replica.commit([.replace(table: "Item", fields: Self.fields, rows: Self.items(3), token: "t1")], origin: .pull)
        let change = PendingChange(id: 9, change: DataTableChange(id: "9", table: "Item", kind: .update, key: ["id": .int32(1)],
                                                                   original: ["price": .int32(10)], values: ["price": .int32(99)]))
        await #expect {
            // Two fields of one name: the CREATE TABLE fails after the first two mutations were applied.
            try await replica.commit([.putPending(change), .token(table: "Item", "t2"),
                                      .replace(table: "Item", fields: [Self.fields[0], Self.fields[1], Self.fields[1]], rows: [], token: "t3")], origin: .pull)
        } throws: { ($0 as? ReplicaError)?.kind == .storage }
        #expect(await replica.pendingChanges.isEmpty)
        #expect(await replica.state.tables["Item"]?.token == "t1")
        #expect(try await replica.row("Item", key: ["id": .int32(1)])?["price"] == .int32(10))
        await replica.close()
        let reopened = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")])
        #expect(await reopened.pendingChanges.isEmpty)
        #expect(await reopened.state.tables["Item"]?.token == "t1")
        #expect(try await reopened.rows("Item").map(\.values) == Self.items(3))
        await reopened.close()
    }

    @Test("A full disk (the database may not grow) is a storage error that says so, and nothing of the download is applied")
    func fullDisk() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")])
        try await replica.commit([.replace(table: "Item", fields: Self.fields, rows: Self.items(3), token: "t1")], origin: .pull)
        // SQLite answers SQLITE_FULL, as for a full disk, once the file would pass this many pages.
        let database = await replica.database
        let pages = try #require(try Self.pageCount(database))
        try database.connection.execute("PRAGMA max_page_count = \(pages + 2)")
        let big = (1 ... 5_000).map { [ODataValue.int32(Int32($0)), .string(String(repeating: "x", count: 200)), .int32(1)] }
        await #expect {
            try await replica.commit([.replace(table: "Item", fields: Self.fields, rows: big, token: "t2")], origin: .pull)
        } throws: { ($0 as? ReplicaError)?.kind == .storage && ($0 as? ReplicaError)?.message.contains("disk is full") == true }
        #expect(try await replica.rows("Item").map(\.values) == Self.items(3))
        #expect(await replica.state.tables["Item"]?.token == "t1")
        // The same through a download on disk, read as it goes in: refused whole, nothing applied.
        let document = directory.appendingPathComponent("download-full.part")
        var writer = JSONWriter()
        CompactTableWriter.begin(name: "Item", fields: Self.fields, into: &writer)
        for row in big { CompactTableWriter.row(row, into: &writer) }
        CompactTableWriter.endRows(into: &writer)
        CompactTableWriter.resume(token: "t3", next: nil, into: &writer)
        CompactTableWriter.endTable(into: &writer)
        try Data(writer.bytes).write(to: document)
        await #expect {
            _ = try await replica.replace("Item", document: document, foreignKeys: [])
        } throws: { ($0 as? ReplicaError)?.kind == .storage && ($0 as? ReplicaError)?.message.contains("disk is full") == true }
        #expect(try await replica.rows("Item").map(\.values) == Self.items(3))
        #expect(await replica.state.tables["Item"]?.token == "t1")
        // A download cut short (the connection dropped: the file ends early) is refused the same way.
        try Data(writer.bytes.prefix(writer.bytes.count / 2)).write(to: document)
        try database.connection.execute("PRAGMA max_page_count = 1000000")
        await #expect {
            _ = try await replica.replace("Item", document: document, foreignKeys: [])
        } throws: { ($0 as? ReplicaError)?.kind == .sync && ($0 as? ReplicaError)?.message.contains("ends early") == true }
        #expect(try await replica.rows("Item").map(\.values) == Self.items(3))
        // Whole, with room: replaced, with the document's token.
        try Data(writer.bytes).write(to: document)
        #expect(try await replica.replace("Item", document: document, foreignKeys: []) == big.count)
        #expect(try await replica.rows("Item").count == big.count)
        #expect(await replica.state.tables["Item"]?.token == "t3")
        await replica.close()
        let reopened = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")])
        #expect(try await reopened.rows("Item").count == big.count)
        #expect(!FileManager.default.fileExists(atPath: document.path), "opening removes a download left behind")
        await reopened.close()
    }

    static func pageCount(_ database: ReplicaDatabase) throws -> Int? {
        let statement = try database.connection.prepare("PRAGMA page_count")
        defer { statement.finalize() }
        guard try statement.step() else { return nil }
        return statement.integer(0).map(Int.init)
    }

    @Test("A file that is not a replica's database is an error naming it")
    func foreignFiles() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(ReplicaDatabase.fileName)
        try Data(repeating: 0x41, count: 8192).write(to: file)
        await #expect { try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")]) } throws: {
            ($0 as? ReplicaError)?.kind == .damaged && ($0 as? ReplicaError)?.message.contains(file.path) == true
        }
        // Another application's SQLite database.
        try FileManager.default.removeItem(at: file)
        do {
            let other = try SQLiteConnection(path: file.path)
            try other.execute("CREATE TABLE notes (text TEXT)")
            other.close()
        }
        await #expect { try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item")]) } throws: {
            ($0 as? ReplicaError)?.kind == .damaged && ($0 as? ReplicaError)?.message.contains("something else") == true
        }
    }

    @Test("A directory of the earlier format (snapshot and journal) is converted on its first open, with its rows, edits, batch and counters")
    func convertsEarlierFormat() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Written with the earlier code path: a snapshot, then journal records after it.
        var legacy = ReplicaJournalState(definition: [ReplicaTable("Item", conflicts: .ask)])
        legacy.apply(.replace(table: "Item", fields: Self.fields, rows: Self.items(3), token: "t1"))
        do {
            let files = try ReplicaFiles(directory: directory)
            _ = try files.read()
            try files.compact(ReplicaSnapshot.write(legacy))
            let update = PendingChange(id: 1, change: DataTableChange(id: "1", table: "Item", kind: .update, key: ["id": .int32(1)],
                                                                       original: ["price": .int32(10)], values: ["price": .int32(11)]))
            let insert = PendingChange(id: 2, change: DataTableChange(id: "2", table: "Item", kind: .insert, key: ["id": .int32(-1)],
                                                                       values: ["name": .string("new"), "price": .int32(5)]))
            let records: [[ReplicaMutation]] = [
                [.counters(nextChange: 2, nextTemporaryKey: -1), .putPending(update)],
                [.counters(nextChange: 3, nextTemporaryKey: -2), .putPending(insert)],
                [.seal(key: "0123456789abcdef0123456789abcdef", ids: [1, 2])],
                [.upsert(table: "Item", rows: [[.int32(3), .string("server"), .int32(33)]]), .delete(table: "Item", keys: [[.int32(2)]]), .token(table: "Item", "t2")],
            ]
            for record in records {
                var writer = JSONWriter(capacity: 256)
                writer.beginArray()
                for mutation in record {
                    mutation.write(to: &writer, state: legacy)
                    legacy.apply(mutation)
                }
                writer.endArray()
                try files.append(writer.bytes)
            }
            files.release()
        }
        let expected = legacy.tables["Item"]!.visible.sorted { KeyOrder.ascending($0.key, $1.key) }.map(\.value)
        #expect(expected.count == 3, "rows 1 (edited), 3 (from the server) and the new one; 2 deleted")

        let replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", conflicts: .ask)])
        #expect(try await replica.rows("Item").map(\.values) == expected)
        #expect(await replica.pendingChanges.map(\.id) == [1, 2])
        #expect(await replica.pendingChanges.allSatisfy(\.isSending))
        #expect(await replica.state.sealed == ReplicaState.Sealed(key: "0123456789abcdef0123456789abcdef", ids: [1, 2]))
        #expect(await replica.state.tables["Item"]?.token == "t2")
        #expect(await (replica.state.nextChange, replica.state.nextTemporaryKey) == (3, -2))
        #expect(await replica.state.pending[1]?.change.original == ["price": .int32(10)])
        for name in [ReplicaFiles.snapshotName, ReplicaFiles.journalName] {
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), "\(name) removed after the conversion")
        }
        // It goes on from there: a new edit takes the next number, and a reopen reads the database.
        try await replica.update("Item", key: ["id": .int32(3)], ["price": .int32(34)])
        #expect(await replica.pendingChanges.last?.id == 3)
        await replica.close()
        let reopened = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Item", conflicts: .ask)])
        #expect(await reopened.pendingChanges.map(\.id) == [1, 2, 3])
        #expect(try await reopened.row("Item", key: ["id": .int32(3)])?["price"] == .int32(34))
        #expect(try await reopened.row("Item", key: ["id": .int32(3)])?.hasPendingChanges == true)
        await reopened.close()
    }

    @Test("In a store, an SQL query runs again when a table it reads changes and only then; a matching query follows edits")
    @MainActor
    func observedQueries() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let replica = try await Self.ownersAndThings(directory)
        let store = await ReplicaStore(replica: replica)
        let things = store.query(sql: "SELECT label FROM Thing ORDER BY label")
        let owners = store.query(sql: "SELECT count(*) FROM Owner")
        let anns = store.query("Thing", matching: ["ownerID": .int32(1)], orderBy: "label")
        try await Self.until { things.result != nil && owners.result != nil && anns.rows.count == 1 }
        #expect(things.result?.tables == ["Thing"] && owners.result?.tables == ["Owner"])

        try await replica.insert(into: "Owner", ["ownerID": .int32(3), "name": .string("Cy")])
        try await Self.until { owners.result?.rows == [[.int64(3)]] }
        // Events are handled in order: once this one shows, the Owner change was handled for every query.
        try await replica.update("Thing", key: ["id": .int32(2)], ["ownerID": .int32(1)])
        try await Self.until { things.runs == 2 && anns.rows.count == 2 }
        #expect(owners.runs == 2, "the Owner query ran once more, for the Owner change only")
        #expect(things.runs == 2, "the Thing query did not run for the Owner change")
        #expect(anns.rows.map { $0["label"] } == [.string("desk"), .string("lamp")])
        #expect(anns.rows.first?.hasPendingChanges == true)
        store.stop()
        await replica.close()
    }

    // MARK: Helpers

    static func ownersAndThings(_ directory: URL) async throws -> Replica {
        let owners = [DataTableField(name: "ownerID", type: .int32, required: true, key: true), DataTableField(name: "name", type: .string)]
        let things = [DataTableField(name: "id", type: .int32, required: true, key: true, serverGenerated: true),
                      DataTableField(name: "ownerID", type: .int32), DataTableField(name: "label", type: .string)]
        let replica = try await Replica.open(at: directory, adapter: Self.adapter, tables: [ReplicaTable("Owner"), ReplicaTable("Thing")])
        try await replica.commit([
            .replace(table: "Owner", fields: owners, rows: [[.int32(1), .string("Ann")], [.int32(2), .string("Bob")]], token: "o"),
            .replace(table: "Thing", fields: things, rows: [[.int32(1), .int32(1), .string("lamp")], [.int32(2), .int32(2), .string("desk")]], token: "t"),
        ], origin: .pull)
        return replica
    }

    /// Waits for `condition`; the bound only ends a wait that would never end.
    @MainActor
    static func until(_ condition: @MainActor () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("the condition did not hold within 30 s", sourceLocation: sourceLocation)
    }

    static func plan(_ database: ReplicaDatabase, _ sql: String) throws -> String {
        let statement = try database.connection.prepare("EXPLAIN QUERY PLAN " + sql)
        defer { statement.finalize() }
        try statement.bind(.string("x"), at: 1)
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(3) ?? "") }
        return lines.joined(separator: "\n")
    }

    static func indexNames(_ database: ReplicaDatabase, prefix: String = "strata.index.") throws -> [String] {
        let statement = try database.connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND substr(name, 1, ?) = ? ORDER BY name")
        defer { statement.finalize() }
        try statement.bind(.int64(Int64(prefix.utf8.count)), at: 1)
        try statement.bind(.string(prefix), at: 2)
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0) ?? "") }
        return names
    }
}
