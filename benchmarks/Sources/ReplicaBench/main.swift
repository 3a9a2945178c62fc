import Foundation
import Observation
import ReplicaBenchSystem
import StrataClient
import StrataCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The offline replica measured (issue 26), one phase per process run, so that an open reads a
// replica another process wrote — as an app launch does. benchmarks/lib/replica.py runs the phases
// in order against each server and reads the one JSON object each prints on stdout; progress and
// errors go to stderr.
//
//   ReplicaBench SERVER SERVICE USER PASSWORD DIRECTORY PHASE [options]
//
// PASSWORD `-` reads it from the environment variable BENCH_PASSWORD (kept off the command line).
// Phases:
//   download  deletes DIRECTORY, opens an empty replica and syncs it: the first download;
//   open      opens the replica in DIRECTORY (written by an earlier run): time, memory growth;
//             `--evict` first drops its files from the page cache (a read from the disk);
//   delta     updates --delta-rows rows of the table on the server (one applyChanges, as another
//             client would), then times the sync that pulls them;
//   observe   --writes local updates of rows inside a ReplicaStore query: time to the event on
//             events() and to the query's rows showing it; the raw fsync of the same disk beside it;
//             then the sync that pushes those changes.
// Options: --table Person, --key-field personID (an integer key), --where FILTER (the replica's defining query), --scale N (rows the
// generator made; the delta picks rows up to it), --delta-rows N, --writes N, --warmup N,
// --query-limit N (the query keeps rows with key <= N), --tag TEXT (makes the delta's values new).

// MARK: Options

struct Options {
    var server: URL
    var service: String
    var user: String
    var password: String
    var directory: URL
    var phase: String
    var table = "Person"
    var keyField = "personID"
    var filter: String?
    var scale = 100_000
    var deltaRows = 10_000
    var writes = 500
    var warmup = 20
    var queryLimit = 200
    var evict = false
    var tag = "0"

    static func parse(_ arguments: [String]) throws(BenchError) -> Options {
        guard arguments.count >= 6 else {
            throw BenchError("usage: ReplicaBench SERVER SERVICE USER PASSWORD DIRECTORY PHASE [--table T] [--key-field K] [--where F] [--scale N] [--delta-rows N] "
                + "[--writes N] [--warmup N] [--query-limit N] [--evict] [--tag T]")
        }
        guard let server = URL(string: arguments[0]), server.scheme != nil else { throw BenchError("not a server URL: \(arguments[0])") }
        var password = arguments[3]
        if password == "-" {
            guard let value = ProcessInfo.processInfo.environment["BENCH_PASSWORD"] else {
                throw BenchError("the password is `-` but BENCH_PASSWORD is not set")
            }
            password = value
        }
        var options = Options(server: server, service: arguments[1], user: arguments[2], password: password,
                              directory: URL(fileURLWithPath: arguments[4]), phase: arguments[5])
        var rest = arguments[6...].makeIterator()
        func value(_ name: String) throws(BenchError) -> String {
            guard let next = rest.next() else { throw BenchError("\(name) needs a value") }
            return next
        }
        func number(_ name: String) throws(BenchError) -> Int {
            let text = try value(name)
            guard let number = Int(text), number > 0 else { throw BenchError("\(name) takes a positive number, not \(text)") }
            return number
        }
        while let argument = rest.next() {
            switch argument {
            case "--table": options.table = try value(argument)
            case "--key-field": options.keyField = try value(argument)
            case "--where": options.filter = try value(argument)
            case "--scale": options.scale = try number(argument)
            case "--delta-rows": options.deltaRows = try number(argument)
            case "--writes": options.writes = try number(argument)
            case "--warmup": options.warmup = try number(argument)
            case "--query-limit": options.queryLimit = try number(argument)
            case "--evict": options.evict = true
            case "--tag": options.tag = try value(argument)
            default: throw BenchError("unknown option \(argument)")
            }
        }
        guard ["download", "open", "delta", "observe"].contains(options.phase) else {
            throw BenchError("unknown phase \(options.phase): download, open, delta or observe")
        }
        return options
    }

    var adapter: RemoteDataAdapter {
        // HTTP Basic on every request, as the tests' clients do: no token to refresh mid-run, and
        // the server remembers a successful check briefly, so it is not a password hash per request.
        let credentials = Data("\(user):\(password)".utf8).base64EncodedString()
        let headers: StrataHeaders = ["Accept": "application/json", "Authorization": "Basic " + credentials]
        let connection = Connection(baseURL: server, configuration: ConnectionConfiguration(defaultHeaders: headers, timeout: 300))
        return RemoteDataAdapter(connection: connection, service: service)
    }

    var tables: [ReplicaTable] { [ReplicaTable(table, where: filter)] }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: Measuring helpers

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

func log(_ text: String) {
    FileHandle.standardError.write(Data("  replica \(text)\n".utf8))
}

/// VmRSS and VmHWM of this process in KiB (/proc/self/status).
func memory() -> (rss: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    var rss = 0, peak = 0
    for line in status.split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, let value = Int(parts[1]) else { continue }
        if parts[0] == "VmRSS:" { rss = value }
        if parts[0] == "VmHWM:" { peak = value }
    }
    return (rss, peak)
}

/// Resets VmHWM to the current RSS (Linux ≥ 4.0), so the peak read after an open is the open's own.
func resetPeakMemory() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    do { try handle.write(contentsOf: Data("5".utf8)) } catch { return false }
    return true
}

/// The replica's files: its SQLite database and the database's write-ahead log (issue 40).
let replicaFiles = ["replica.sqlite", "replica.sqlite-wal"]

/// Sizes of the replica's files in bytes (`database_bytes`, `wal_bytes`).
func fileSizes(_ directory: URL) -> [String: Any] {
    var sizes: [String: Any] = [:]
    for (name, key) in zip(replicaFiles, ["database", "wal"]) {
        let file = directory.appendingPathComponent(name)
        sizes[key + "_bytes"] = (try? file.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
    }
    return sizes
}

/// Drops the replica's files from the page cache, so the next read comes from the disk. The files
/// were flushed (fsync) by the replica, so their pages are clean and POSIX_FADV_DONTNEED drops them.
func evictFromPageCache(_ directory: URL) -> Bool {
    var all = true
    for name in replicaFiles {
        let path = directory.appendingPathComponent(name).path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { continue }
        fdatasync(descriptor)
        if posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED)) != 0 { all = false }
        close(descriptor)
    }
    return all
}

/// A percentile as feed.py's `percentile` takes it (the sample at round(p × (n − 1)), rounding half
/// to even as Python does), so the two sections of the report count alike.
func percentile(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let index = Int((p / 100 * Double(sorted.count - 1)).rounded(.toNearestOrEven))
    return sorted[min(sorted.count - 1, index)]
}

func summary(_ values: [Double]) -> [String: Any] {
    var result: [String: Any] = ["count": values.count]
    for (name, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)] { result[name + "_ms"] = percentile(values, p) }
    result["mean_ms"] = values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    return result
}

/// Fails the run with a message when a step hangs (an event that never comes), instead of waiting
/// for the harness's timeout: the step's name says what did not happen.
final class Watchdog: Sendable {
    private let step = Mutex<(name: String, since: ContinuousClock.Instant)>(("starting", .now))
    private let limit: Duration

    init(limit: Duration) {
        self.limit = limit
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: .seconds(1))
                let (name, since) = step.withLock { $0 }
                if ContinuousClock.now - since > limit {
                    FileHandle.standardError.write(Data("ReplicaBench: \(name) did not finish within \(limit)\n".utf8))
                    exit(3)
                }
            }
        }
    }

    func enter(_ name: String) {
        step.withLock { $0 = (name, .now) }
    }
}

// MARK: Phases

@MainActor
final class Bench {
    let options: Options
    let watchdog = Watchdog(limit: .seconds(300))
    var result: [String: Any] = [:]
    /// RSS growth of the last open, and the same after malloc_trim, in KiB.
    var openGrowth = (rss: 0, trimmed: 0)

    init(options: Options) {
        self.options = options
        result["phase"] = options.phase
        result["table"] = options.table
        result["where"] = options.filter
    }

    func run() async throws {
        switch options.phase {
        case "download": try await download()
        case "open": try await openOnly()
        case "delta": try await delta()
        default: try await observe()
        }
    }

    /// Opens the replica, timing the open and the memory it takes.
    func open(_ adapter: RemoteDataAdapter) async throws -> Replica {
        watchdog.enter("Replica.open")
        result.merge(fileSizes(options.directory).mapKeys { "before_open_" + $0 }) { $1 }
        let peakReset = resetPeakMemory()
        let before = memory()
        let started = ContinuousClock.now
        let replica = try await Replica.open(at: options.directory, adapter: adapter, tables: options.tables)
        let openMs = milliseconds(ContinuousClock.now - started)
        let after = memory()
        replica_bench_malloc_trim()
        let trimmed = memory()
        result["open_ms"] = openMs
        result["rss_before_kib"] = before.rss
        result["rss_after_kib"] = after.rss
        result["rss_growth_kib"] = after.rss - before.rss
        // What glibc can hand back once the open's temporary buffers are freed: what the replica keeps.
        result["rss_growth_after_trim_kib"] = trimmed.rss - before.rss
        openGrowth = (after.rss - before.rss, trimmed.rss - before.rss)
        if peakReset { result["peak_growth_kib"] = after.peak - before.rss }
        return replica
    }

    /// Rows of the table as the app reads them (every row built and sorted by key), timed.
    func countRows(_ replica: Replica) async throws -> Int {
        watchdog.enter("Replica.rows")
        let started = ContinuousClock.now
        let count = try await replica.rows(options.table).count
        result["rows_read_ms"] = milliseconds(ContinuousClock.now - started)
        result["rows"] = count
        return count
    }

    /// An SQL query of the rows with key <= --query-limit (the key's index serves it), 21 times:
    /// the median, and how many rows it answered.
    func indexedQuery(_ replica: Replica) async throws {
        watchdog.enter("an indexed query")
        func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let sql = "SELECT * FROM \(quoted(options.table)) WHERE \(quoted(options.keyField)) <= ?"
        var times: [Double] = []
        var found = 0
        for _ in 0 ..< 21 {
            let started = ContinuousClock.now
            found = try await replica.query(sql, [.int64(Int64(options.queryLimit))]).rows.count
            times.append(milliseconds(ContinuousClock.now - started))
        }
        result["indexed_query_ms"] = percentile(times, 50)
        result["indexed_query_rows"] = found
        log("indexed query: \(found) rows in \(fmt(percentile(times, 50))) ms (median of 21)")
    }

    func download() async throws {
        try? FileManager.default.removeItem(at: options.directory)
        let adapter = options.adapter
        let replica = try await open(adapter)
        watchdog.enter("the first sync")
        let before = memory()
        let started = ContinuousClock.now
        let report = try await replica.sync()
        let seconds = milliseconds(ContinuousClock.now - started) / 1000
        let after = memory()
        result["sync_s"] = seconds
        result["apply_s"] = milliseconds(report.applyDuration) / 1000
        result["received"] = report.received
        result["reloaded"] = report.reloaded
        result["rows_per_s"] = Double(report.received) / seconds
        result["sync_rss_growth_kib"] = after.rss - before.rss
        result["sync_peak_kib"] = after.peak
        let rows = try await countRows(replica)
        guard rows == report.received, rows > 0 else {
            throw BenchError("the download received \(report.received) rows but the replica shows \(rows)")
        }
        await replica.close()
        result.merge(fileSizes(options.directory).mapKeys { "after_" + $0 }) { $1 }
        log("download: \(rows) rows in \(String(format: "%.2f", seconds)) s (\(Int(Double(rows) / seconds)) rows/s)")
    }

    func openOnly() async throws {
        guard FileManager.default.fileExists(atPath: options.directory.appendingPathComponent(replicaFiles[0]).path) else {
            throw BenchError("\(options.directory.path) holds no replica database: run the download phase first")
        }
        if options.evict { result["evicted"] = evictFromPageCache(options.directory) }
        let replica = try await open(options.adapter)
        try await indexedQuery(replica)
        let rows = try await countRows(replica)
        guard rows > 0 else { throw BenchError("the replica in \(options.directory.path) has no rows") }
        result["rss_growth_per_100k_rows_kib"] = Double(openGrowth.rss) * 100_000 / Double(rows)
        result["rss_growth_after_trim_per_100k_rows_kib"] = Double(openGrowth.trimmed) * 100_000 / Double(rows)
        await replica.close()
        result.merge(fileSizes(options.directory).mapKeys { "after_" + $0 }) { $1 }
        log("open\(options.evict ? " (evicted)" : ""): \(rows) rows in \(fmt(result["open_ms"] as? Double)) ms, "
            + "RSS +\(openGrowth.rss / 1024) MiB (+\(openGrowth.trimmed / 1024) MiB after malloc_trim)")
    }

    func delta() async throws {
        let adapter = options.adapter
        let replica = try await open(adapter)
        let before = try await countRows(replica)

        // Distinct rows spread over the whole key range (every step-th key), updated by another
        // client: one change set per page of at most 10,000 rows (the server's largest $top).
        watchdog.enter("reading the rows to update on the server")
        let step = max(1, options.scale / options.deltaRows)
        let filter = "\(options.keyField) le \(options.scale) and \(options.keyField) mod \(step) eq 0"
        let page = 10_000
        var updated = 0
        var lastKey: ODataValue?
        var serverSeconds = 0.0
        while updated < options.deltaRows {
            var people = try await adapter.table(options.table, where: filter, orderBy: options.keyField,
                                                 top: min(page, options.deltaRows - updated), skip: updated)
            guard !people.rows.isEmpty else {
                throw BenchError("the server has \(updated) rows with \(filter), not \(options.deltaRows)")
            }
            for row in people.rows {
                try people.update(row.id) { try $0.set("firstName", to: "Delta \(options.tag) \(updated)") }
                lastKey = row[options.keyField]
                updated += 1
            }
            watchdog.enter("applyChanges of \(people.rows.count) updates")
            let updateStarted = ContinuousClock.now
            let summary = try await adapter.applyChanges(&people)
            serverSeconds += milliseconds(ContinuousClock.now - updateStarted) / 1000
            guard summary.succeeded else {
                throw BenchError("the server applied \(summary.applied) of \(people.rows.count) updates (\(summary.failed) failed, \(summary.conflicts) conflicts)")
            }
        }
        result["server_update_s"] = serverSeconds

        watchdog.enter("the delta sync")
        let memoryBefore = memory()
        let started = ContinuousClock.now
        let report = try await replica.sync()
        let seconds = milliseconds(ContinuousClock.now - started) / 1000
        result["sync_s"] = seconds
        result["apply_s"] = milliseconds(report.applyDuration) / 1000
        result["received"] = report.received
        result["removed"] = report.removed
        result["reloaded"] = report.reloaded
        result["rows_per_s"] = Double(report.received) / seconds
        result["sync_rss_growth_kib"] = memory().rss - memoryBefore.rss
        guard report.reloaded.isEmpty else { throw BenchError("the sync downloaded \(report.reloaded) again instead of a delta") }
        guard report.received == options.deltaRows else {
            throw BenchError("the delta brought \(report.received) rows, not the \(options.deltaRows) updated")
        }
        // The replica shows the server's new values.
        let key: DataTableValues = [options.keyField: lastKey ?? .null]
        let shown = try await replica.row(options.table, key: key)?["firstName"]
        guard shown == .string("Delta \(options.tag) \(options.deltaRows - 1)") else {
            throw BenchError("after the delta the replica shows firstName \(String(describing: shown)) for \(key)")
        }
        let after = try await countRows(replica)
        guard after == before else { throw BenchError("the replica had \(before) rows before the delta and \(after) after") }
        await replica.close()
        result.merge(fileSizes(options.directory).mapKeys { "after_" + $0 }) { $1 }
        log("delta: \(report.received) rows in \(String(format: "%.0f", seconds * 1000)) ms (\(Int(Double(report.received) / seconds)) rows/s)")
    }

    func observe() async throws {
        let adapter = options.adapter
        let replica = try await open(adapter)
        _ = try await countRows(replica)
        result["fsync"] = try fsyncProbe()

        // Every event, stamped where a non-UI consumer of events() would see it: in a task of its own.
        watchdog.enter("the store's first query")
        let (stamps, stamped) = AsyncStream<(keys: Set<[ODataValue]>, at: ContinuousClock.Instant)>.makeStream()
        let events = await replica.events()
        let table = options.table
        let consumer = Task.detached {
            for await event in events {
                let at = ContinuousClock.now
                if case .changed(let change) = event, change.origin == .local, let keys = change.rows[table] ?? nil {
                    stamped.yield((keys, at))
                }
            }
            stamped.finish()
        }

        let store = await ReplicaStore(replica: replica)
        let limit = Int64(options.queryLimit), keyField = options.keyField
        let queryStarted = ContinuousClock.now
        let query = store.query(table, orderBy: "firstName") { ($0[keyField]?.integerValue ?? .max) <= limit }
        // Each change of the query's rows, stamped when the main actor runs after it (where SwiftUI
        // would render it): withObservationTracking's onChange fires before the new value is set.
        let (changes, changed) = AsyncStream<ContinuousClock.Instant>.makeStream()
        func watch() {
            withObservationTracking {
                _ = query.rows
            } onChange: {
                Task { @MainActor in changed.yield(.now) }
            }
        }
        var changeIterator = changes.makeAsyncIterator()
        while query.rows.count < options.queryLimit {
            watch()
            if query.rows.count >= options.queryLimit { break }
            _ = await changeIterator.next()
        }
        result["query_first_rows_ms"] = milliseconds(ContinuousClock.now - queryStarted)
        result["query_rows"] = query.rows.count
        guard query.rows.count == options.queryLimit else { throw BenchError("the query shows \(query.rows.count) rows, not \(options.queryLimit)") }

        var stampIterator = stamps.makeAsyncIterator()
        var returned: [Double] = [], toEvent: [Double] = [], toRows: [Double] = []
        // Whether the row had an unsent change already (a second edit before a sync): the replica
        // takes another path then (the open change is merged), so the two are reported apart too.
        var reEdit: [Bool] = []
        for n in 0 ..< options.warmup + options.writes {
            // Keys cycle through the query's rows; each write gives a new firstName, so the row
            // moves in the query's order.
            let keyValue = Int64(n % options.queryLimit + 1)
            let expected = ODataValue.string("W\(options.tag)-\(String(format: "%06d", (n * 7919) % 1_000_000))")
            watchdog.enter("write \(n)")
            let hadPending = try await replica.row(table, key: [keyField: .int64(keyValue)])?.hasPendingChanges ?? false
            watch()
            let started = ContinuousClock.now
            try await replica.update(table, key: [keyField: .int64(keyValue)], ["firstName": expected])
            let returnedAt = ContinuousClock.now

            var eventAt: ContinuousClock.Instant?
            while eventAt == nil {
                guard let stamp = await stampIterator.next() else { throw BenchError("the event stream ended") }
                if stamp.keys.contains(where: { $0.first?.integerValue == keyValue }) { eventAt = stamp.at }
            }
            var rowsAt: ContinuousClock.Instant?
            while rowsAt == nil {
                guard let at = await changeIterator.next() else { throw BenchError("the query's change stream ended") }
                // A signal left from an earlier registration (each fires once, at the next change) is not this write's.
                if at < started { continue }
                if query.rows.contains(where: { $0.id.first?.integerValue == keyValue && $0["firstName"] == expected }) {
                    rowsAt = at
                } else {
                    watch()
                    // A change between the onChange and this registration would otherwise be missed.
                    if query.rows.contains(where: { $0.id.first?.integerValue == keyValue && $0["firstName"] == expected }) { rowsAt = .now }
                }
            }
            if n >= options.warmup {
                returned.append(milliseconds(returnedAt - started))
                toEvent.append(milliseconds(eventAt! - started))
                toRows.append(milliseconds(rowsAt! - started))
                reEdit.append(hadPending)
            }
        }
        // The query still has its rows, in order, after the writes (checked when every row got a
        // written name: those have one length and prefix, so String order is the store's order too).
        let names = query.rows.map { $0["firstName"]?.stringValue ?? "" }
        guard query.rows.count == options.queryLimit else { throw BenchError("after the writes the query shows \(query.rows.count) rows") }
        if options.warmup + options.writes >= options.queryLimit, names != names.sorted() {
            throw BenchError("after the writes the query's rows are out of order: \(names.prefix(10))")
        }
        result["writes"] = options.writes
        result["warmup_writes"] = options.warmup
        result["update_returned"] = summary(returned)
        result["to_event"] = summary(toEvent)
        result["to_query_rows"] = summary(toRows)
        result["samples_ms"] = ["update_returned": returned, "to_event": toEvent, "to_query_rows": toRows]
        result["samples_re_edit"] = reEdit
        for (name, wanted) in [("first_edit", false), ("re_edit", true)] {
            let picked = { (values: [Double]) in zip(values, reEdit).filter { $0.1 == wanted }.map(\.0) }
            result[name] = ["update_returned": summary(picked(returned)), "to_event": summary(picked(toEvent)),
                            "to_query_rows": summary(picked(toRows))]
        }
        result["pending_after_writes"] = await replica.syncStatus.pendingCount

        // The outbox those writes left: one push.
        watchdog.enter("the push of the local changes")
        let pushStarted = ContinuousClock.now
        let report = try await replica.sync()
        result["push_s"] = milliseconds(ContinuousClock.now - pushStarted) / 1000
        result["push_sent"] = report.sent
        result["push_applied"] = report.applied
        guard report.failed == 0, report.applied == report.sent else {
            throw BenchError("the push sent \(report.sent) changes, \(report.applied) applied, \(report.failed) failed")
        }

        store.stop()
        await replica.close()
        consumer.cancel()
        log("observe: \(options.writes) writes; to the event p50 \(fmt(percentile(toEvent, 50))) p99 \(fmt(percentile(toEvent, 99))) ms; "
            + "to the query's rows p50 \(fmt(percentile(toRows, 50))) p99 \(fmt(percentile(toRows, 99))) ms; "
            + "push of \(report.sent) changes \(fmt((result["push_s"] as? Double).map { $0 * 1000 })) ms")
    }

    /// The disk's own cost of a durable append in the replica's directory: a small write and an
    /// fsync, as the journal does per commit, without the replica.
    func fsyncProbe() throws -> [String: Any] {
        let path = options.directory.appendingPathComponent("fsync-probe").path
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError("cannot create \(path)") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let record = [UInt8](repeating: 0x61, count: 200)
        var times: [Double] = []
        for _ in 0 ..< 200 {
            let started = ContinuousClock.now
            let written = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == record.count, fsync(descriptor) == 0 else { throw BenchError("the fsync probe could not write \(path)") }
            times.append(milliseconds(ContinuousClock.now - started))
        }
        return summary(times)
    }
}

func fmt(_ value: Double?) -> String {
    value.map { String(format: "%.2f", $0) } ?? "—"
}

extension Dictionary where Key == String {
    func mapKeys(_ transform: (String) -> String) -> [String: Value] {
        Dictionary(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}

// MARK: Main

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("ReplicaBench: \(error)\n".utf8))
    exit(2)
}
let bench = Bench(options: options)
do {
    try await bench.run()
} catch {
    FileHandle.standardError.write(Data("ReplicaBench: \(options.phase) failed: \(error)\n".utf8))
    exit(1)
}
do {
    let data = try JSONSerialization.data(withJSONObject: bench.result, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
} catch {
    FileHandle.standardError.write(Data("ReplicaBench: the result does not serialize: \(error)\n".utf8))
    exit(1)
}
exit(0)
