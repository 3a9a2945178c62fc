import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// A `strata` server running as a child process.
struct StrataProcess {
    let pid: pid_t
    let port: Int
    let log: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `strata serve` on a test configuration's data directory and, on PostgreSQL, its database,
    /// logging errors only; `extra` follows, and `postgres` too when the database is PostgreSQL.
    static func serveArguments(_ configuration: StrataConfiguration, _ extra: [String] = [], postgres: [String] = []) -> [String] {
        var arguments = ["serve", "--data", configuration.dataDirectory, "--log-level", "error"] + extra
        if case .postgres(let location)? = configuration.database { arguments += ["--database", location.description] + postgres }
        return arguments
    }

    /// The `strata` executable built next to the test bundle (`swift build` puts both in the same
    /// directory), or `STRATA_BINARY`.
    static func executable() throws -> String {
        if let override = ProcessInfo.processInfo.environment["STRATA_BINARY"] { return override }
        var candidates: [String] = []
        if let testBinary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
            // On Linux the test binary sits in the build directory; on macOS inside Foo.xctest/Contents/MacOS.
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("strata").path)
                directory = directory.deletingLastPathComponent()
            }
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("strata").path)
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "the strata executable was not found next to the tests (looked at \(candidates.joined(separator: ", "))); build it with `swift build` first or set STRATA_BINARY")
        }
        return found
    }

    /// Starts the server on a free loopback port and waits until `/health` answers. `environment`
    /// changes this process's environment for it: a value sets a variable, nil removes it.
    static func start(_ binary: String, arguments: [String], environment: [String: String?] = [:]) async throws -> StrataProcess {
        let process = try launch(binary, arguments: arguments, environment: environment)
        try await process.waitUntilHealthy()
        return process
    }

    /// Starts the server on a free loopback port without waiting for it, so that several can be
    /// started at the same moment; ``waitUntilHealthy()`` then waits for each.
    static func launch(_ binary: String, arguments: [String], environment: [String: String?] = [:]) throws -> StrataProcess {
        let port = try freeLoopbackPort()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("strata-process-\(UUID().uuidString.prefix(8)).log").path
        let pid = try spawnLogged(binary, arguments + ["--host", "127.0.0.1", "--port", String(port)], log: log, environment: environment)
        return StrataProcess(pid: pid, port: port, log: log)
    }

    /// Waits until `/health` answers 200; kills the process and throws with its log when it exits
    /// or does not answer within 60 s.
    func waitUntilHealthy() async throws {
        switch try await awaitReady(child: pid, within: .seconds(60), every: .milliseconds(100), isHealthy) {
        case .ready:
            return
        case .exited:
            throw Failure(description: "strata exited during start-up: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        case .timedOut:
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            kill()
            throw Failure(description: "strata did not answer /health within 60 s: \(text)")
        }
    }

    /// Whether `/health` answers 200, asked without credentials (a server on an empty database has
    /// no account for the administrator's).
    private func isHealthy() async -> Bool {
        let answer = try? await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            try await client.execute(TestClient.Request("/health", method: .get, authority: "localhost", headers: [:], body: nil))
        }
        return answer?.status == .ok
    }

    func request(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil) async throws -> TestClient.Response {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            // Signed in as the templates' administrator, as `withServer` requests are.
            var headers: HTTPFields = [.authorization: AdministratorTestClient.authorization]
            if body != nil { headers[.contentType] = "application/json" }
            return try await client.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers,
                                                               body: body.map { ByteBuffer(string: $0) }))
        }
    }

    /// This process's resident memory in bytes (Linux `/proc/<pid>/status`).
    var residentMemory: Int { RawHTTP.residentMemory(pid: pid) }

    /// Sends SIGTERM and waits for the process to exit; answers its exit status, or nil if it
    /// did not exit within `timeout`.
    func terminate(timeout: Duration = .seconds(30)) async -> Int32? {
        _ = Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// SIGKILL: no signal handler, no graceful shutdown, no chance to flush anything.
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: log)
    }

}

extension TestClient.Response {
    var text: String { body.map { String(buffer: $0) } ?? "" }

    /// The body parsed as JSON; records an issue and returns null when it is not JSON.
    var json: JSONValue {
        do {
            return try JSONValue.parse(Array(text.utf8))
        } catch {
            Issue.record("response is not JSON (\(error)): \(text.prefix(300))")
            return .null
        }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module does not
/// import: the spawned program starts with no descriptor from `from` up.
func spawnClosesDescriptors(from first: Int32, _ actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        Issue.record("posix_spawn_file_actions_addclosefrom_np is missing (glibc older than 2.34)")
        return
    }
    _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, first)
}
