import Foundation
@testable import StrataClient
import StrataCore
@testable import StrataServer
import Testing

/// `strata sync` killed with SIGKILL while it downloads a table and while it applies a delta of
/// many pages: the local database holds the last committed step — the table whole or not at all,
/// whole pages of the delta under the old token — and the next sync ends with the server's rows.
@Suite("Replica: download and delta killed", .serialized)
struct ReplicaDownloadKilledTests {
    static let rows = 20_000
    static let changed = 6_000

    static func track(_ configuration: inout StrataConfiguration) {
        configuration.pageSize = 50 // a delta page of $tables is ten pages: 500 rows
        let url = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("big.model.yaml")
        try? FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        try? "track: all\n".write(to: url, atomically: true, encoding: .utf8)
    }

    @Test("Killed while downloading 20,000 rows and while applying a 12-page delta: never a partial table or page, then complete",
          arguments: Backend.allCases)
    func killed(_ backend: Backend) async throws {
        try await withLiveServer(backend, services: [OperationsTests.bigRows(Self.rows)], configure: { Self.track(&$0) }) { connection in
            let strata = try StrataProcess.executable()
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("download-killed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let environment = ["STRATA_CREDENTIALS": scratch.appendingPathComponent("credentials").path]
            let directory = scratch.appendingPathComponent("replica")
            let adapter = RemoteDataAdapter(connection: connection, service: "big")
            let sync = ["sync", directory.path, "--server", connection.baseURL.absoluteString, "--service", "big", "--tables", "Row"]

            // What a killed run left: the rows and the token, and where a download was cut off —
            // while it arrived (its file), or after some of it went into a staging table.
            func look() async throws -> (rows: [ReplicaRow], token: String?, cut: String?) {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter(ReplicaDatabase.isDownload)
                let database = directory.appendingPathComponent(ReplicaDatabase.fileName).path
                func stagingTables() throws -> [String] {
                    guard FileManager.default.fileExists(atPath: database) else { return [] }
                    let raw = try SQLiteConnection(path: database)
                    defer { raw.close() }
                    return try ReplicaDatabase.stagingTables(in: raw)
                }
                let staged = try stagingTables()
                let cut = !staged.isEmpty ? "cut staging" : names.isEmpty ? nil : "cut arriving"
                let replica = try await Replica.open(at: directory, adapter: adapter, tables: [ReplicaTable("Row")])
                let rows = try await replica.rows("Row")
                let token = await replica.state.tables["Row"]?.token
                await replica.close()
                #expect(!((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).contains(where: ReplicaDatabase.isDownload),
                        "opening removes a killed download's files")
                #expect(try stagingTables().isEmpty, "opening drops a killed download's staging table")
                return (rows, token, cut)
            }

            // The first download: timed, then killed at moments through it.
            let started = ContinuousClock.now
            let whole = try await ChildProcess.run(strata, sync, environment: environment)
            let run = started.duration(to: .now)
            #expect(whole.status == 0 && whole.output.contains("downloaded Row"), "\(whole.output)\(whole.errors)")
            var downloads: [String] = []
            var fractions = [0.5, 0.65, 0.75, 0.85, 0.9, 0.95]
            var index = 0
            while index < fractions.count {
                try FileManager.default.removeItem(at: directory)
                try await runKilled(strata, sync, environment, after: run * fractions[index])
                let left = try await look()
                #expect(left.rows.isEmpty || left.rows.count == Self.rows, "a partial table: \(left.rows.count) rows")
                #expect(left.rows.isEmpty == (left.token == nil), "rows without a token, or a token without rows")
                downloads.append(left.rows.isEmpty ? (left.cut ?? "before") : "whole")
                index += 1
                // None landed in the download (a loaded machine runs at another pace): later or earlier moments.
                if index == fractions.count, fractions.count < 14, !downloads.contains(where: { $0.hasPrefix("cut") }) {
                    fractions += downloads.contains("whole") ? [0.2, 0.3, 0.4, 0.45] : [0.97, 1.0, 1.1, 1.3]
                }
            }
            print("strata sync killed during a download of \(Self.rows) rows (run \(run)): \(downloads)")
            #expect(downloads.contains { $0.hasPrefix("cut") }, "no kill landed while the download was being received or applied: \(downloads)")
            let completed = try await ChildProcess.run(strata, sync, environment: environment)
            #expect(completed.status == 0, "\(completed.output)\(completed.errors)")
            #expect(try await look().rows.count == Self.rows)

            // A delta of many pages: the replica as it is now is kept aside, the server changes
            // rows, and syncs that start from the kept copy are killed while they apply the delta.
            let kept = scratch.appendingPathComponent("kept")
            try FileManager.default.copyItem(at: directory, to: kept)
            let original = try #require(try await look().token)
            var table = try await adapter.table("Row", where: "id le \(Self.changed)")
            for row in table.rows {
                _ = try table.update(row.id) { (row: inout DataTableRow) throws(DataTableError) in
                    try row.set("label", to: "changed \(row["id"]?.integerValue ?? 0)")
                }
            }
            _ = try await adapter.applyChanges(&table)
            func restore() throws {
                try? FileManager.default.removeItem(at: directory)
                try FileManager.default.copyItem(at: kept, to: directory)
            }
            try restore()
            let timed = ContinuousClock.now
            let unkilled = try await ChildProcess.run(strata, sync, environment: environment)
            let deltaRun = timed.duration(to: .now)
            #expect(unkilled.status == 0, "\(unkilled.output)\(unkilled.errors)")
            func changedRows(_ rows: [ReplicaRow]) -> Int { rows.filter { $0["label"]?.stringValue?.hasPrefix("changed") == true }.count }
            #expect(changedRows(try await look().rows) == Self.changed)

            var moments = [0.4, 0.55, 0.7, 0.85].map { deltaRun * $0 }
            var deltas: [Int] = []
            index = 0
            while index < moments.count {
                try restore()
                try await runKilled(strata, sync, environment, after: moments[index])
                let left = try await look()
                let applied = changedRows(left.rows)
                #expect(left.rows.count == Self.rows)
                // The token moves only with the last page: a new token means every change is in.
                #expect(left.token == original || applied == Self.changed, "a new token with \(applied) of \(Self.changed) changes")
                #expect(applied % 500 == 0, "\(applied) changes applied: not whole pages of 500")
                deltas.append(applied)
                index += 1
                if index == moments.count, moments.count < 12, !deltas.contains(where: { $0 > 0 && $0 < Self.changed }) {
                    // No kill landed between pages (a loaded machine runs at another pace): moments between those tried.
                    let sorted = moments.sorted()
                    moments += zip(sorted, sorted.dropFirst()).map { ($0 + $1) / 2 } + [sorted[0] / 2]
                }
            }
            print("strata sync killed during a delta of \(Self.changed) rows in pages of 500 (run \(deltaRun)): changed rows applied \(deltas)")
            #expect(deltas.contains { $0 > 0 && $0 < Self.changed }, "no kill landed between two pages of the delta: \(deltas)")
            // From the last killed state, the next sync applies the rest.
            let rest = try await ChildProcess.run(strata, sync, environment: environment)
            #expect(rest.status == 0, "\(rest.output)\(rest.errors)")
            let final = try await look()
            #expect(final.rows.count == Self.rows && changedRows(final.rows) == Self.changed && final.token != original)
        }
    }
}
