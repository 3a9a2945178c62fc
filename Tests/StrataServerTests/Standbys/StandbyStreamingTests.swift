import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
import Testing

/// The reads that happen after a response's head went out, or outside any request, on standbys
/// (docs/DEPLOYMENT.md, *Standbys*): blob downloads, the later chunks of a long collection, and the
/// change feed's reads. One primary, a standby that keeps up and one that applies each commit a
/// second late; server `current` reads the first, server `lagging` only the second. Where the reads
/// ran is counted by each node's own statistics (`pg_stat_all_tables`).
@Suite("Standbys: streamed and background reads", .serialized)
struct StandbyStreamingTests {
    @Test("Blob downloads, a long collection's later chunks and the change feed read on standbys, never older than what the caller saw")
    func streamedReads() async throws {
        let postgres = try await ReplicatedPostgres.start(applyDelays: [nil, "1s"])
        defer { postgres.stopAll() }
        var cluster = StandbyServers()
        defer { cluster.stopAll() }
        let current = try await cluster.start(database: postgres.primary.url, replicas: [postgres.standbys[0].url],
                                              extra: ["--max-replica-lag", "1m"])
        let lagging = try await cluster.start(database: postgres.primary.url, replicas: [postgres.standbys[1].url],
                                              extra: ["--max-replica-lag", "1m"])
        let serving = try await StandbyServers.eventually(within: .seconds(30)) {
            let first = try await StandbyServers.metric(current, "strata_standby_serving", standbyPort: postgres.standbys[0].port)
            let second = try await StandbyServers.metric(lagging, "strata_standby_serving", standbyPort: postgres.standbys[1].port)
            return first == 1 && second == 1
        }
        guard serving else { Issue.record("both standbys serve reads"); return }

        try await Self.blobDownloads(postgres, cluster, current: current, lagging: lagging)
        try await Self.longCollection(postgres, cluster, server: current)
        try await Self.feed(postgres, cluster, server: current, standby: postgres.standbys[0], lags: false)
        try await Self.feed(postgres, cluster, server: lagging, standby: postgres.standbys[1], lags: true)
    }

    static let position = HTTPField.Name(ReadPosition.headerName)!

    static func bytes(_ response: TestClient.Response) -> [UInt8] {
        response.body.map { Array($0.readableBytesView) } ?? []
    }

    /// A blob of four chunks and a bit: downloaded whole and by ranges across chunk boundaries on the
    /// standby that keeps up (the primary reads no chunk), and at once after its upload through the
    /// server whose standby lags a second, which lacks every chunk then: the primary serves those.
    static func blobDownloads(_ postgres: ReplicatedPostgres, _ cluster: StandbyServers, current: StrataProcess,
                              lagging: StrataProcess) async throws {
        let content = (0..<(4 * 256 * 1024 + 1000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let put = try await LoopbackHTTP.send(port: current.port, .put, "/blobs/speakers/standby.bin",
                                              headers: [.authorization: cluster.editor, .contentType: "application/octet-stream"], body: content)
        #expect(put.status == .created || put.status == .ok, "\(put.status) \(put.text)")
        // Uploads write Strata's own tables, which no standby serves a request from; the primary's
        // position now is past the upload.
        // (The insert position: with `synchronous_commit = off` the write position may be short of the commit.)
        let writtenText = try await postgres.value(postgres.primary, "SELECT pg_current_wal_insert_lsn()")
        let written = try #require(ReadPosition(writtenText))

        // The standby that keeps up has replayed the upload, and its poll says so.
        _ = try await StandbyServers.eventually {
            try await postgres.value(postgres.standbys[0], "SELECT pg_last_wal_replay_lsn() >= '\(written)'::pg_lsn") == "t"
        }
        try await Task.sleep(for: .milliseconds(300))
        let nodes = [postgres.primary, postgres.standbys[0]]
        var before: [Int] = []
        for node in nodes { before.append(try await postgres.scans(node, schema: "strata_system", table: "blob_chunks")) }
        let downloads = 4
        for _ in 0..<downloads {
            let whole = try await LoopbackHTTP.send(port: current.port, .get, "/blobs/speakers/standby.bin")
            #expect(whole.status == .ok && Self.bytes(whole) == content, "a whole download from the standby")
            let seen = whole.headers[position].flatMap(ReadPosition.init)
            #expect(seen.map { $0 >= written } == true, "the download's position is past the upload: \(String(describing: seen)) vs \(written)")
            let range = try await LoopbackHTTP.send(port: current.port, .get, "/blobs/speakers/standby.bin",
                                                    headers: [.range: "bytes=262000-786999"])
            #expect(range.status == .partialContent && Self.bytes(range) == Array(content[262_000...786_999]),
                    "a range across three chunks from the standby: \(range.status)")
        }
        var after = before
        _ = try await StandbyServers.eventually(within: .seconds(10)) {
            after[1] = try await postgres.scans(postgres.standbys[0], schema: "strata_system", table: "blob_chunks")
            return after[1] - before[1] >= downloads * 2
        }
        try await Task.sleep(for: .milliseconds(1500))
        after[0] = try await postgres.scans(postgres.primary, schema: "strata_system", table: "blob_chunks")
        #expect(after[1] - before[1] >= downloads * 2, "the standby read the chunks: \(before) → \(after)")
        #expect(after[0] == before[0], "the primary read no chunk: \(before) → \(after)")

        // A new blob, downloaded at once through the server whose only standby is a second behind
        // and has no chunk of it yet. (Last: the primary publishes its statistics of these reads
        // only some seconds later, which would blur the count above.)
        let other = Array(content.reversed())
        let second = try await LoopbackHTTP.send(port: current.port, .put, "/blobs/speakers/standby-2.bin",
                                                 headers: [.authorization: cluster.editor, .contentType: "application/octet-stream"], body: other)
        #expect(second.status == .created || second.status == .ok, "\(second.status) \(second.text)")
        let early = try await LoopbackHTTP.send(port: lagging.port, .get, "/blobs/speakers/standby-2.bin")
        #expect(early.status == .ok && Self.bytes(early) == other, "the primary served what the standby lacks")
    }

    /// 5,000 more people, read by an OData 1.0 client (no paging: one response, five chunks and more)
    /// while a writer adds people on the primary and the standby's replay is paused: every row of
    /// the response is on the paused standby, whose position the response carries — the later chunks
    /// were read in the first's snapshot host's snapshot, not on the primary (where they would hold
    /// the writer's newer rows).
    static func longCollection(_ postgres: ReplicatedPostgres, _ cluster: StandbyServers, server: StrataProcess) async throws {
        let standby = postgres.standbys[0]
        _ = try await postgres.value(postgres.primary, """
            INSERT INTO cardealer."Person" ("firstName", "lastName") SELECT 'bulk-' || i, 'Bulk' FROM generate_series(1, 5000) AS i
            """)
        let target = try await postgres.value(postgres.primary, "SELECT pg_current_wal_insert_lsn()")
        let caughtUp = try await StandbyServers.eventually {
            try await postgres.value(standby, "SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn") == "t"
        }
        #expect(caughtUp, "the standby replays the 5,000 people")
        _ = try await postgres.value(standby, "SELECT pg_wal_replay_pause()")
        defer { Task { _ = try? await postgres.value(standby, "SELECT pg_wal_replay_resume()") } }
        try await Task.sleep(for: .milliseconds(300))
        let onStandby = Int(try await postgres.value(standby, "SELECT count(*) FROM cardealer.\"Person\"")) ?? -1
        let replayedText = try await postgres.value(standby, "SELECT pg_last_wal_replay_lsn()")
        let replayed = try #require(ReadPosition(replayedText))

        let writer = Self.writer(postgres, prefix: "late")
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        let response = try await LoopbackHTTP.send(port: server.port, .get, "/cardealer/Person",
                                                   headers: [.authorization: cluster.editor, HTTPField.Name("MaxDataServiceVersion")!: "1.0"])
        let took = ContinuousClock.now - started
        _ = try await writer.value
        #expect(response.status == .ok, "\(response.text.prefix(300))")
        let rows = (try JSONValue.parse(Self.bytes(response)))["d"]?.arrayValue ?? []
        let onPrimary = Int(try await postgres.value(postgres.primary, "SELECT count(*) FROM cardealer.\"Person\"")) ?? -1
        #expect(onStandby > 5000 && onPrimary > onStandby, "the writer added rows meanwhile: \(onStandby) on the standby, \(onPrimary) on the primary")
        #expect(rows.count == onStandby, "every row read in the paused standby's snapshot: \(rows.count) rows, \(onStandby) on the standby")
        let seen = response.headers[position].flatMap(ReadPosition.init)
        #expect(seen.map { $0 <= replayed } == true, "the response's position is the paused standby's: \(String(describing: seen)) vs \(replayed)")
        print("StandbyStreamingTests: \(rows.count) rows in one response, held snapshot on the standby, \(took)")

        // The same for a data table fetched whole (`$tables`, as a replica's first download does).
        let tableWriter = Self.writer(postgres, prefix: "later")
        try await Task.sleep(for: .milliseconds(100))
        let table = try await LoopbackHTTP.send(port: server.port, .get, "/cardealer/$tables?names=Car,Person",
                                                headers: [.authorization: cluster.editor])
        _ = try await tableWriter.value
        #expect(table.status == .ok, "\(table.text.prefix(300))")
        let tableRows = try CompactTable.decode(Self.bytes(table)).first { $0.name == "Person" }?.rows ?? []
        #expect(tableRows.count == onStandby, "$tables read in the paused standby's snapshot: \(tableRows.count) rows, \(onStandby) on the standby")
        #expect(table.headers[position].flatMap(ReadPosition.init).map { $0 <= replayed } == true, "the $tables answer's position is the paused standby's")
    }

    /// 300 people committed one by one on the primary over about a second, named `prefix-1`….
    static func writer(_ postgres: ReplicatedPostgres, prefix: String) -> Task<String, any Error> {
        Task {
            try await postgres.value(postgres.primary, """
                DO $$ BEGIN FOR i IN 1..300 LOOP \
                INSERT INTO cardealer."Person" ("firstName", "lastName") VALUES ('\(prefix)-' || i, 'Writer'); COMMIT; \
                PERFORM pg_sleep(0.003); END LOOP; END $$
                """)
        }
    }

    /// A subscriber of `server`'s change stream gets each of 15 writes once, in order; the hub's
    /// reads of the change log ran on `standby` (those of the standby that lags, too, once it has
    /// replayed what the hub read before).
    static func feed(_ postgres: ReplicatedPostgres, _ cluster: StandbyServers, server: StrataProcess,
                     standby: ReplicatedPostgres.Node, lags: Bool) async throws {
        let reader = try await EventStreamReader.open(port: server.port, path: "/cardealer/$feed?sets=Person",
                                                      headers: ["Authorization": cluster.editor])
        defer { reader.close() }
        #expect(reader.status == 200, "\(reader.head)")
        #expect(await reader.next(1).first?.event == "ready")
        let nodes = [postgres.primary, standby]
        var before: [Int] = []
        for node in nodes { before.append(try await postgres.scans(node, schema: "strata_feed", table: "cardealer")) }
        let writes = 15
        let tag = lags ? "lagging" : "current"
        for index in 0..<writes {
            let created = try await cluster.postPerson(port: server.port, firstName: "\(tag)-\(index)", lastName: "Feed")
            #expect(created.status == 201)
            try await Task.sleep(for: .milliseconds(lags ? 150 : 60))
        }
        var names: [String] = []
        let deadline = ContinuousClock.now + .seconds(15)
        while names.filter({ $0.hasPrefix("\(tag)-") }).count < writes, ContinuousClock.now < deadline {
            for event in await reader.next(1, timeout: .seconds(3)) where event.event == "changes" {
                for table in event.tables {
                    for row in FeedTablesTests.rows(table) {
                        if let name = row.lazy.compactMap(\.stringValue).first(where: { $0.hasPrefix("\(tag)-") }) { names.append(name) }
                    }
                }
            }
        }
        let mine = names.filter { $0.hasPrefix("\(tag)-") }
        #expect(mine == (0..<writes).map { "\(tag)-\($0)" }, "each write once, in order: \(mine)")
        try await Task.sleep(for: .milliseconds(1500))
        var after: [Int] = []
        for node in nodes { after.append(try await postgres.scans(node, schema: "strata_feed", table: "cardealer")) }
        print("StandbyStreamingTests: feed log scans (primary, standby) \(before) → \(after), lagging standby: \(lags)")
        if !lags {
            #expect(after[1] - before[1] > after[0] - before[0], "the standby read most of the change log: \(before) → \(after)")
        }
    }
}
