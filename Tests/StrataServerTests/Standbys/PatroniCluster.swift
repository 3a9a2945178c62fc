import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Two PostgreSQL nodes managed by Patroni (Debian's `patroni`) with a one-member etcd (`etcd-server`)
/// on loopback: Patroni bootstraps the first, clones the second from it, keeps it a synchronous
/// standby (`synchronous_mode`), and promotes it when the leader's key expires (`ttl`, 20 s, the
/// least Patroni takes).
///
/// As root, Patroni and PostgreSQL run as `postgres` through `runuser`; etcd runs as the test's user.
final class PatroniCluster: Sendable {
    struct Node: Sendable {
        var name: String
        var port: Int
        var api: Int
        var data: String
        var configuration: String
    }

    let base: String
    let nodes: [Node]
    private let processes: StartedProcesses

    /// Whether Patroni and etcd are installed (`.ci/run` installs them).
    static var isInstalled: Bool {
        ["/usr/bin/patroni", "/usr/bin/etcd"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private init(base: String, nodes: [Node]) {
        self.base = base
        self.nodes = nodes
        processes = StartedProcesses()
    }

    /// Starts etcd and both nodes; returns once node 1 leads and node 2 is its synchronous standby.
    static func start() async throws -> PatroniCluster {
        let bin = try PostgresTestCluster.binDirectory()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("strata-patroni-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let (client, peer) = (try freeLoopbackPort(), try freeLoopbackPort())
        var nodes: [Node] = []
        for index in 1...2 {
            let node = Node(name: "node\(index)", port: try freeLoopbackPort(), api: try freeLoopbackPort(), data: base + "/data\(index)",
                            configuration: base + "/node\(index).yml")
            try """
                scope: strata
                name: \(node.name)
                restapi: {listen: 127.0.0.1:\(node.api), connect_address: 127.0.0.1:\(node.api)}
                etcd: {host: 127.0.0.1:\(client)}
                bootstrap:
                  dcs: {ttl: 20, loop_wait: 1, retry_timeout: 5, maximum_lag_on_failover: 1048576, synchronous_mode: true,
                        postgresql: {use_pg_rewind: false, parameters: {wal_level: replica, hot_standby: "on", max_wal_senders: 10}}}
                  initdb: [{encoding: UTF8}, no-locale]
                  pg_hba: ["host replication all 127.0.0.1/32 trust", "host all all 127.0.0.1/32 trust", "local all all trust"]
                postgresql:
                  listen: 127.0.0.1:\(node.port)
                  connect_address: 127.0.0.1:\(node.port)
                  data_dir: \(node.data)
                  bin_dir: \(bin)
                  pgpass: \(base)/pgpass\(index)
                  authentication: {replication: {username: postgres}, superuser: {username: postgres}}
                  parameters: {unix_socket_directories: \(base), fsync: "off", max_connections: 200}

                """.write(toFile: node.configuration, atomically: true, encoding: .utf8)
            nodes.append(node)
        }
        if geteuid() == 0 { try PostgresTestCluster.run("/bin/chown", ["-R", "postgres:postgres", base]) }
        let cluster = PatroniCluster(base: base, nodes: nodes)
        do {
            try cluster.spawn("/usr/bin/etcd", ["--data-dir", base + "/etcd", "--listen-client-urls", "http://127.0.0.1:\(client)",
                                                "--advertise-client-urls", "http://127.0.0.1:\(client)",
                                                "--listen-peer-urls", "http://127.0.0.1:\(peer)",
                                                "--initial-advertise-peer-urls", "http://127.0.0.1:\(peer)",
                                                "--initial-cluster", "default=http://127.0.0.1:\(peer)", "--enable-v2=true"],
                              log: base + "/etcd.log", asPostgres: false)
            try cluster.startPatroni(nodes[0])
            guard await cluster.answers(nodes[0], "/primary", within: .seconds(60)) else {
                throw PostgresTestCluster.ClusterError("Patroni's first node did not lead within 60 s: \(cluster.log(nodes[0]))")
            }
            try cluster.startPatroni(nodes[1])
            guard await cluster.answers(nodes[1], "/sync", within: .seconds(60)) else {
                throw PostgresTestCluster.ClusterError("Patroni's second node did not become a synchronous standby within 60 s: \(cluster.log(nodes[1]))")
            }
        } catch {
            cluster.stopAll()
            throw error
        }
        return cluster
    }

    private func startPatroni(_ node: Node) throws {
        try spawn("/usr/bin/patroni", [node.configuration], log: base + "/\(node.name).log", asPostgres: true, name: node.name)
    }

    /// Whether the node's REST API answers 200 at `path` (`/primary`, `/sync`) within `limit`.
    func answers(_ node: Node, _ path: String, within limit: Duration) async -> Bool {
        // curl, not the tests' HTTP client: Patroni's API answers HTTP/1.0 and closes, which that client does not read.
        await StandbyServers.eventually(within: limit) {
            (try? await ChildProcess.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(node.api)\(path)"]))?
                .output == "200"
        }
    }

    func log(_ node: Node) -> String {
        String(((try? String(contentsOfFile: base + "/\(node.name).log", encoding: .utf8)) ?? "").suffix(2000))
    }

    /// The node's machine dies: its Patroni and its PostgreSQL are killed at once (SIGKILL).
    func crash(_ node: Node) throws {
        for pid in processes.pids(named: node.name) {
            // runuser's child (Patroni itself), then runuser.
            for child in (try? ChildProcess.run("pgrep", ["-P", String(pid)]).output)?.split(separator: "\n") ?? [] {
                if let child = pid_t(child.trimmingCharacters(in: .whitespaces)) { _ = kill(child, SIGKILL) }
            }
            _ = kill(pid, SIGKILL)
        }
        try ReplicatedPostgres.crash(dataDirectory: node.data)
    }

    /// Stops everything it started and deletes its files.
    func stopAll() {
        for (name, pid) in processes.all.reversed() {
            if name.hasPrefix("node") {
                for child in (try? ChildProcess.run("pgrep", ["-P", String(pid)]).output)?.split(separator: "\n") ?? [] {
                    if let child = pid_t(child.trimmingCharacters(in: .whitespaces)) { _ = kill(child, SIGKILL) }
                }
            }
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        for node in nodes where FileManager.default.fileExists(atPath: node.data + "/postmaster.pid") {
            try? ReplicatedPostgres.crash(dataDirectory: node.data)
        }
        try? FileManager.default.removeItem(atPath: base)
    }

    private func spawn(_ tool: String, _ arguments: [String], log: String, asPostgres: Bool, name: String = "etcd") throws {
        let (executable, all) = asPostgres && geteuid() == 0 ? ("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments) : (tool, arguments)
        processes.add(name, try spawnLogged(executable, all, log: log))
    }
}

/// The processes a ``PatroniCluster`` started, by name, in order.
final class StartedProcesses: Sendable {
    private let box = Mutex<[(String, pid_t)]>([])
    func add(_ name: String, _ pid: pid_t) { box.withLock { $0.append((name, pid)) } }
    func pids(named name: String) -> [pid_t] { box.withLock { $0.filter { $0.0 == name }.map(\.1) } }
    var all: [(String, pid_t)] { box.withLock { $0 } }
}
