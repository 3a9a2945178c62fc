import Foundation
@testable import StrataClient
import StrataCore
@testable import StrataServer
import Testing

/// While a table downloads, its rows go into a staging table batch by batch; the replica keeps
/// answering with the table as it was and keeps taking local edits, which stay on top of the
/// downloaded rows once the last batch makes the staging table the table.
@Suite("Replica: a download that overlaps its inserts")
struct ReplicaDownloadOverlapTests {
    static let rows = 40_000

    @Test("Mid-download the table reads as before and takes an update and an insert; after it, every row with both on top, still pending",
          arguments: Backend.allCases)
    func editsDuringDownload(_ backend: Backend) async throws {
        try await withLiveServer(backend, services: [OperationsTests.bigRows(Self.rows)],
                                 configure: { ReplicaDownloadKilledTests.track(&$0) }) { connection in
            let adapter = RemoteDataAdapter(connection: connection, service: "big")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replica-overlap-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appendingPathComponent(ReplicaDatabase.fileName).path
            func stagingTables() throws -> [String] {
                let raw = try SQLiteConnection(path: database)
                defer { raw.close() }
                return try ReplicaDatabase.stagingTables(in: raw)
            }

            // The table downloaded once, then given a token the server issued for another query:
            // the next sync's delta is refused (410) and the table downloads anew over its rows.
            let first = try await Replica.open(at: directory, adapter: adapter, tables: [ReplicaTable("Row")])
            try await first.sync()
            await first.close()
            let foreign = try #require(try await adapter.trackedTable("Row", where: "id le 5").token)
            do {
                let raw = try SQLiteConnection(path: database)
                defer { raw.close() }
                let update = try raw.prepared("UPDATE \(ReplicaDatabase.tables) SET token = ? WHERE name = 'Row'")
                try update.bind(foreign, at: 1)
                try update.run()
            }
            let replica = try await Replica.open(at: directory, adapter: adapter, tables: [ReplicaTable("Row")])
            let events = await replica.events()
            let sync = Task { try await replica.sync() }
            // Past a few staging batches (half a megabyte each), but before the end (~5 MB).
            var seenMidway = false
            for await event in events {
                guard case .status(let status) = event, let download = status.download else { continue }
                if download.receivedBytes >= 1_500_000 {
                    seenMidway = true
                    break
                }
            }
            try #require(seenMidway, "the download reported its progress")
            let staged = try stagingTables()
            let visible = try await replica.rows("Row").count
            try await replica.update("Row", key: ["id": .int64(1)], ["label": .string("edited while the table downloads")])
            // SQLite makes the key of an INTEGER PRIMARY KEY; PostgreSQL's table wants it given.
            let generated = try await replica.fields("Row").first { $0.name == "id" }?.serverGenerated == true
            let values: DataTableValues = generated ? [:] : ["id": .int64(Int64(Self.rows + 1))]
            let local = try await replica.insert(into: "Row", values.merging(["label": .string("written while the table downloads")]) { $1 })
            let stillDownloading = await replica.syncStatus.download != nil

            let report = try await sync.value
            #expect(report.reloaded == ["Row"] && report.received == Self.rows)
            #expect(try await replica.rows("Row").count == Self.rows + 1, "the downloaded rows and the local insert")
            #expect(try await replica.row("Row", key: local)?.hasPendingChanges == true)
            #expect(try await replica.row("Row", key: ["id": .int64(1)])?["label"] == .string("edited while the table downloads"),
                    "the local edit stays on top of the downloaded row")
            #expect(await replica.syncStatus.pendingCount == 2)
            #expect(try stagingTables().isEmpty, "the staging table became the table")
            if stillDownloading {
                // The edit landed between two batches: the table read as before, and rows were
                // already in the staging table, committed.
                #expect(visible == Self.rows, "mid-download the table reads as it was, not half downloaded: \(visible) rows")
                #expect(staged.count == 1, "batches went into one staging table while the rest arrived: \(staged)")
            }
            print("replica overlap (\(backend)): edit during the download: \(stillDownloading), staging tables then: \(staged.count)")

            // The next sync sends the insert, and the server has it.
            let pushed = try await replica.sync()
            #expect(pushed.sent == 2 && pushed.applied == 2, "\(pushed)")
            await replica.close()
        }
    }

    @Test("A download the server refuses is the server's error; it leaves no file and no staging table", arguments: [Backend.sqlite])
    func refusedDownload(_ backend: Backend) async throws {
        try await withLiveServer(backend, services: [OperationsTests.bigRows(10)],
                                 configure: { ReplicaDownloadKilledTests.track(&$0) }) { (connection: Connection) in
            let adapter = RemoteDataAdapter(connection: connection, service: "big")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replica-refused-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let replica = try await Replica.open(at: directory, adapter: adapter, tables: [ReplicaTable("Nowhere")])
            do throws(ReplicaError) {
                try await replica.sync()
                Issue.record("a sync of a table the service does not have succeeded")
            } catch {
                #expect(error.kind == .sync)
                #expect(error.message.contains("Nowhere") && error.message.contains("could not download"), "\(error.message)")
                #expect(error.underlying?.status == 404, "\(String(describing: error.underlying))")
            }
            await replica.close()
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(!left.contains(where: ReplicaDatabase.isDownload), "\(left)")
            let raw = try SQLiteConnection(path: directory.appendingPathComponent(ReplicaDatabase.fileName).path)
            defer { raw.close() }
            #expect(try ReplicaDatabase.stagingTables(in: raw).isEmpty)
        }
    }
}
