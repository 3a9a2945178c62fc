import Foundation

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory, `pg_ctl start`
/// on a free loopback port, stopped and deleted when the test process exits.
///
/// `initdb` refuses to run as root, so as root the binaries run as the `postgres` user through `runuser`.
actor PostgresTestCluster {
    static let shared = PostgresTestCluster()

    struct Endpoint: Sendable {
        var host: String
        var port: Int
        var user: String
        /// Where the server's Unix-domain socket lives (`-k`).
        var socketDirectory: String? = nil
    }

    private var launching: Task<(endpoint: Endpoint, bin: String, data: String, asRoot: Bool), any Error>?
    private var location: (bin: String, data: String, asRoot: Bool)?
    private var endpoint: Endpoint?

    /// Starts the cluster on first use; later and concurrent callers share the same one.
    func start() async throws -> Endpoint {
        if launching == nil {
            launching = Task {
                // initdb and pg_ctl take seconds; they run on a thread of their own, not on the
                // cooperative pool that the tests' async code needs.
                try await withCheckedThrowingContinuation { continuation in
                    Thread.detachNewThread {
                        continuation.resume(with: Result { try PostgresTestCluster.launch() })
                    }
                }
            }
        }
        let launched = try await launching!.value
        location = (launched.bin, launched.data, launched.asRoot)
        endpoint = launched.endpoint
        return launched.endpoint
    }

    /// Starts the server again after ``stop()``, on the same port with the same data.
    func restart() async throws {
        guard let location, let endpoint, let base = endpoint.socketDirectory else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try PostgresTestCluster.runAsOwner(location.asRoot, "\(location.bin)/pg_ctl", [
                        "-D", location.data, "-o", PostgresTestCluster.options(port: endpoint.port, socketDirectory: base),
                        "-l", base + "/log", "-w", "start",
                    ])
                })
            }
        }
    }

    /// Stops the server now (`pg_ctl stop -m immediate`), as a crash or an outage would.
    func stop() async throws {
        guard let location else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let tool = location.asRoot ? "/usr/sbin/runuser" : "\(location.bin)/pg_ctl"
                    let prefix = location.asRoot ? ["-u", "postgres", "--", "\(location.bin)/pg_ctl"] : []
                    try PostgresTestCluster.run(tool, prefix + ["-D", location.data, "-m", "immediate", "stop"])
                })
            }
        }
    }

    struct ClusterError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func binDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { Int($0) }.sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(directory)/initdb") {
            return String(directory)
        }
        throw ClusterError("PostgreSQL server binaries (initdb, pg_ctl) not found; install the postgresql package")
    }

    private static func launch() throws -> (endpoint: Endpoint, bin: String, data: String, asRoot: Bool) {
        let bin = try binDirectory()
        let asRoot = geteuid() == 0
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-\(UUID().uuidString.prefix(8))").path
        let data = base + "/data"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        if asRoot { try run("/bin/chown", ["-R", "postgres:postgres", base]) }
        let port = try freeLoopbackPort()
        try runAsOwner(asRoot, "\(bin)/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale"])
        try runAsOwner(asRoot, "\(bin)/pg_ctl", ["-D", data, "-o", options(port: port, socketDirectory: base), "-l", base + "/log", "-w", "start"])
        ClusterCleanup.register(pgctl: "\(bin)/pg_ctl", data: data, base: base, asRoot: asRoot)
        return (Endpoint(host: "127.0.0.1", port: port, user: "postgres", socketDirectory: base), bin, data, asRoot)
    }

    static func options(port: Int, socketDirectory: String) -> String {
        "-p \(port) -k \(socketDirectory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
    }

    static func runAsOwner(_ asRoot: Bool, _ tool: String, _ arguments: [String]) throws {
        if asRoot {
            try run("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments)
        } else {
            try run(tool, arguments)
        }
    }

    /// Runs a tool to completion with posix_spawn and waitpid. Foundation's `Process` is not used:
    /// `pg_ctl start` leaves a server running that inherits descriptors, and `Process.waitUntilExit`
    /// can wait on those instead of on the tool itself.
    static func run(_ tool: String, _ arguments: [String]) throws {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-tool-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        // spawnLogged closes every other descriptor: the PostgreSQL server `pg_ctl start` leaves
        // running must not keep this process's sockets open.
        let pid: pid_t
        do {
            pid = try spawnLogged(tool, arguments, log: outputPath)
        } catch {
            throw ClusterError("cannot start \(tool): \(error)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED && WEXITSTATUS == 0
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw ClusterError("\(tool) \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }

}

/// Stops the cluster when the test process exits (Swift Testing has no global teardown).
enum ClusterCleanup {
    // Every access to `commands` holds `lock`, so the unchecked shared state is never raced.
    nonisolated(unsafe) private static var commands: [(pgctl: String, data: String, base: String, asRoot: Bool)] = []
    private static let lock = NSLock()

    static func register(pgctl: String, data: String, base: String, asRoot: Bool) {
        lock.lock()
        let first = commands.isEmpty
        commands.append((pgctl, data, base, asRoot))
        lock.unlock()
        if first {
            atexit {
                ClusterCleanup.stopAll()
            }
        }
    }

    static func stopAll() {
        lock.lock()
        let all = commands
        commands.removeAll()
        lock.unlock()
        for command in all {
            let tool = command.asRoot ? "/usr/sbin/runuser" : command.pgctl
            let prefix = command.asRoot ? ["-u", "postgres", "--", command.pgctl] : []
            try? PostgresTestCluster.run(tool, prefix + ["-D", command.data, "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(atPath: command.base)
        }
    }
}

/// A loopback port the kernel considers free right now.
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw PostgresTestCluster.ClusterError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0 else { throw PostgresTestCluster.ClusterError("bind() failed") }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
