import Foundation
import Testing

/// A PostgreSQL primary with streaming standbys on loopback, for the standby tests: `initdb`, then
/// each standby `pg_basebackup -R` from the primary (so it streams from it), each node in a
/// directory of its own, stopped and deleted by ``stopAll()`` (and at exit, should a test crash).
///
/// As root the server tools run as `postgres` through `runuser`, as ``PostgresTestCluster`` does.
final class ReplicatedPostgres: Sendable {
    struct Node: Sendable {
        var name: String
        /// The node's directory: its data in `data`, its socket and log beside.
        var directory: String
        var port: Int
        var data: String { directory + "/data" }
        var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }
    }

    let bin: String
    let asRoot: Bool
    let base: String
    let primary: Node
    let standbys: [Node]

    private init(bin: String, asRoot: Bool, base: String, primary: Node, standbys: [Node]) {
        self.bin = bin
        self.asRoot = asRoot
        self.base = base
        self.primary = primary
        self.standbys = standbys
    }

    /// Starts a primary and one standby per entry of `applyDelays` (`"2s"` for a standby that
    /// applies each commit that much later; nil for none). `synchronous`: the primary waits for a
    /// standby's flush before it acknowledges a commit (`synchronous_standby_names = '*'`,
    /// `synchronous_commit = on`), the setting docs/DEPLOYMENT.md gives for losing no acknowledged write.
    static func start(applyDelays: [String?], synchronous: Bool = false) async throws -> ReplicatedPostgres {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try launch(applyDelays: applyDelays, synchronous: synchronous) })
            }
        }
    }

    private static func launch(applyDelays: [String?], synchronous: Bool) throws -> ReplicatedPostgres {
        let bin = try PostgresTestCluster.binDirectory()
        let asRoot = geteuid() == 0
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("strata-standbys-\(UUID().uuidString.prefix(8))").path
        func node(_ name: String) throws -> Node {
            let directory = base + "/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return Node(name: name, directory: directory, port: try freeLoopbackPort())
        }
        let primary = try node("primary")
        let standbys = try applyDelays.indices.map { try node("standby\($0 + 1)") }
        if asRoot { try PostgresTestCluster.run("/bin/chown", ["-R", "postgres:postgres", base]) }
        let cluster = ReplicatedPostgres(bin: bin, asRoot: asRoot, base: base, primary: primary, standbys: standbys)
        do {
            try cluster.owner("initdb", ["-D", primary.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale"])
            var settings = ["wal_level = replica", "max_wal_senders = 10", "hot_standby = on", "wal_keep_size = '256MB'"]
            if synchronous { settings += ["synchronous_standby_names = '*'"] }
            try cluster.append(settings, to: primary.data + "/postgresql.conf")
            try cluster.startNode(primary, synchronousCommit: synchronous)
            ClusterCleanup.register(pgctl: "\(bin)/pg_ctl", data: primary.data, base: primary.directory, asRoot: asRoot)
            for (standby, delay) in zip(standbys, applyDelays) {
                try cluster.owner("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", standby.data,
                                                    "-R", "-X", "stream", "-c", "fast"])
                // A standby promoted later must not wait for a synchronous standby of its own.
                var own = ["synchronous_standby_names = ''"]
                if let delay { own.append("recovery_min_apply_delay = '\(delay)'") }
                try cluster.append(own, to: standby.data + "/postgresql.auto.conf")
                try cluster.startNode(standby, synchronousCommit: synchronous)
                ClusterCleanup.register(pgctl: "\(bin)/pg_ctl", data: standby.data, base: standby.directory, asRoot: asRoot)
            }
        } catch {
            cluster.stopAll()
            throw error
        }
        return cluster
    }

    private func owner(_ tool: String, _ arguments: [String]) throws {
        try PostgresTestCluster.runAsOwner(asRoot, "\(bin)/\(tool)", arguments)
    }

    private func append(_ lines: [String], to file: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    private func startNode(_ node: Node, synchronousCommit: Bool) throws {
        // The other tests' options, but with commits flushed and acknowledged as configured here.
        let options = "-p \(node.port) -k \(node.directory) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off "
            + "-c max_connections=200 -c synchronous_commit=\(synchronousCommit ? "on" : "off")"
        try owner("pg_ctl", ["-D", node.data, "-o", options, "-l", node.directory + "/log", "-w", "-t", "60", "start"])
    }

    /// Starts a stopped node again, with the options it had.
    func restart(_ node: Node) async throws {
        let synchronous = (try? String(contentsOfFile: primary.data + "/postgresql.conf", encoding: .utf8))?
            .contains("synchronous_standby_names = '*'") ?? false
        try await detached { try self.startNode(node, synchronousCommit: synchronous) }
    }

    /// `pg_ctl stop -m immediate`: the node stops at once, as in a crash.
    func stop(_ node: Node) async throws {
        try await detached { try self.owner("pg_ctl", ["-D", node.data, "-m", "immediate", "stop"]) }
    }

    /// SIGKILL to the postmaster of `dataDirectory` and every process it started, as a crash of the
    /// machine's PostgreSQL would end them: the postmaster is stopped first (SIGSTOP), so that it
    /// forks nothing while its children are listed (`pgrep -P`, by its pid) and killed.
    static func crash(dataDirectory: String) throws {
        let text = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let postmaster = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else {
            throw PostgresTestCluster.ClusterError("no postmaster pid in \(dataDirectory)")
        }
        _ = Glibc.kill(postmaster, SIGSTOP)
        let children = try ChildProcess.run("pgrep", ["-P", String(postmaster)]).output
            .split(separator: "\n").compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
        for child in children { _ = Glibc.kill(child, SIGKILL) }
        _ = Glibc.kill(postmaster, SIGKILL)
    }

    /// `pg_ctl promote -w`: the standby becomes a primary once it answers as one.
    func promote(_ node: Node) async throws {
        try await detached { try self.owner("pg_ctl", ["-D", node.data, "-w", "-t", "60", "promote"]) }
    }

    /// One value from `psql` on the node (`-At`: unaligned, no header).
    func value(_ node: Node, _ sql: String) async throws -> String {
        try await Self.value(port: node.port, sql)
    }

    /// One value from `psql` on the server at `port` of loopback.
    static func value(port: Int, _ sql: String) async throws -> String {
        let result = try await ChildProcess.run("psql", ["-At", "-X", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres",
                                                         "-d", "postgres", "-c", sql])
        guard result.status == 0 else { throw PostgresTestCluster.ClusterError("psql on port \(port): \(result.errors)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Index and sequential scans of a table on one node, as that node's statistics count them
    /// (each node counts only the queries it ran itself). Statistics are published about once a
    /// second, so callers poll.
    func scans(_ node: Node, schema: String, table: String) async throws -> Int {
        let text = try await value(node, """
            SELECT COALESCE(SUM(COALESCE(idx_scan, 0) + COALESCE(seq_scan, 0)), 0) FROM pg_stat_all_tables \
            WHERE schemaname = '\(schema)' AND relname = '\(table)'
            """)
        return Int(text) ?? -1
    }

    /// Stops every node and deletes their files.
    func stopAll() {
        for node in [primary] + standbys {
            try? owner("pg_ctl", ["-D", node.data, "-m", "immediate", "stop"])
        }
        try? FileManager.default.removeItem(atPath: base)
    }

    private func detached(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
