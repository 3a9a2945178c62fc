import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import StrataCore
@testable import StrataServer
import Testing

/// An acknowledged write survives `kill -9` of the server process: the `strata` executable runs as
/// a child process, takes writes, is killed without warning, restarts on the same data, and reads.
@Suite("Durability")
struct ConcurrencyDurabilityTests {
    @Test("Writes acknowledged before kill -9 are there after a restart", arguments: Backend.allCases)
    func killNine(_ backend: Backend) async throws {
        let binary = try StrataProcess.executable()
        let configuration = try await TestDatabases.shared.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        var arguments = ["serve", "--data", configuration.dataDirectory, "--log-level", "error"]
        if case .postgres(let location)? = configuration.database {
            arguments += ["--database", "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database ?? "")"]
        }

        var server = try await StrataProcess.start(binary, arguments: arguments)
        var created: [(uri: String, name: String)] = []
        do {
            for index in 0..<20 {
                let name = "Durable\(index)"
                let response = try await server.request(.post, "/cardealer/Person", body: #"{"firstName":"\#(name)","lastName":"Kill"}"#)
                #expect(response.status == .created)
                created.append((try #require(response.headers[.location]).replacingOccurrences(of: "http://localhost", with: ""), name))
            }
            let merged = try await server.request(HTTPRequest.Method("MERGE")!, "/cardealer/Person(1)", body: #"{"ssn":"after-crash"}"#)
            #expect(merged.status == .noContent)
            // No pause and no shutdown: the process dies right after the last acknowledgement.
            server.kill()
        } catch {
            server.kill()
            throw error
        }

        server = try await StrataProcess.start(binary, arguments: arguments)
        defer { server.kill() }
        for (uri, name) in created {
            let read = try await server.request(.get, uri)
            #expect(read.status == .ok, "\(uri) is gone after the restart")
            #expect(read.text.contains(name))
        }
        #expect(try await server.request(.get, "/cardealer/Person(1)").text.contains("after-crash"))
    }
}

/// A `strata` server running as a child process.
struct StrataProcess {
    let pid: pid_t
    let port: Int
    let log: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
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

    /// Starts the server on a free loopback port and waits until `/health` answers.
    static func start(_ binary: String, arguments: [String]) async throws -> StrataProcess {
        let port = try freePort()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("strata-process-\(UUID().uuidString.prefix(8)).log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments + ["--host", "127.0.0.1", "--port", String(port)]).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(binary): error \(spawned)") }
        let process = StrataProcess(pid: pid, port: port, log: log)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let health = try? await process.request(.get, "/health"), health.status == .ok { return process }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw Failure(description: "strata exited during start-up: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.kill()
        throw Failure(description: "strata did not answer /health within 60 s: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    func request(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil) async throws -> TestClient.Response {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            var headers: HTTPFields = [:]
            if body != nil { headers[.contentType] = "application/json" }
            return try await client.execute(TestClient.Request(uri, method: method, authority: "localhost", headers: headers,
                                                               body: body.map { ByteBuffer(string: $0) }))
        }
    }

    /// SIGKILL: no signal handler, no graceful shutdown, no chance to flush anything.
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: log)
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure(description: "bind() failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension TestClient.Response {
    var text: String { body.map { String(buffer: $0) } ?? "" }
}
