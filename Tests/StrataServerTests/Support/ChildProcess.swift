import Foundation
import Testing

/// A program run to completion with `posix_spawn`, its input and outputs through files.
///
/// Not Foundation's `Process`: on Linux with Swift 6.3.1, `Process.run()` reads past the end of a
/// buffer while it lists `/proc/self/fd` and now and then crashes the whole test process with a
/// bad pointer dereference (swift-corelibs-foundation pull request 5472, fixed after 6.3.1; a CI
/// run of this suite hit it). Files instead of pipes: no reader thread, and no deadlock when a
/// program writes more than a pipe holds before its other stream is read.
enum ChildProcess {
    struct Result: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// ``run(_:_:environment:input:directory:)`` waited for on a thread of its own: a test whose
    /// child talks to an in-process server must not block one of the two cooperative threads the
    /// server's handlers run on (with both blocked, child and server wait for each other).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                    directory: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try run(executable, arguments, environment: environment, input: input, directory: directory) as Result })
            }
        }
    }

    /// Runs `executable` (a path, or a name looked up in `PATH`) and waits for it. `environment`
    /// adds to this process's variables; `input` is its standard input; `directory` its working directory.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                    directory: String? = nil) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString.prefix(12))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (inPath, outPath, errPath) = (scratch.appendingPathComponent("in").path, scratch.appendingPathComponent("out").path,
                                          scratch.appendingPathComponent("err").path)
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: inPath))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        spawnClosesDescriptors(from: 3, &actions)
        if let directory { try spawnChangesDirectory(to: directory, &actions) }

        let pid = try spawnChild(executable, arguments, environment: environment.mapValues { $0 }, searchingPath: true, &actions)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waiting for \(executable): \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros; a signal reads as 128 + its number.
        let exited = status & 0x7f == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return Result(status: code, output: read(outPath), errors: read(errPath))
    }
}

/// Starts `executable` with `arguments` and this process's environment changed by `environment` (a
/// value sets a variable, nil removes it), under `actions`; answers its process id. `searchingPath`
/// looks a bare name up in `PATH` (`posix_spawnp`).
func spawnChild(_ executable: String, _ arguments: [String], environment: [String: String?], searchingPath: Bool,
                _ actions: inout posix_spawn_file_actions_t) throws -> pid_t {
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var variables = ProcessInfo.processInfo.environment
    for (name, value) in environment { variables[name] = value }
    let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = searchingPath ? posix_spawnp(&pid, executable, &actions, nil, argv, envp) : posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard spawned == 0 else { throw ChildProcess.Failure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
    return pid
}

/// Starts a child that runs on beside the test (a server, a proxy, an identity provider): its input
/// from /dev/null, its output and errors into the file `log`, and no other descriptor of the test
/// process — the test process's own sockets (NIO accepts connections without close-on-exec) would
/// otherwise live on in the child, and a connection an in-process test server closes would stay
/// open for its client. Answers its process id.
func spawnLogged(_ executable: String, _ arguments: [String], log: String, environment: [String: String?] = [:]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    spawnClosesDescriptors(from: 3, &actions)
    return try spawnChild(executable, arguments, environment: environment, searchingPath: false, &actions)
}

/// How waiting for a started child to serve ended.
enum ChildReadiness {
    case ready, exited, timedOut
}

/// Asks `ready` every `interval` until it answers true, the child `pid` exits, or `timeout` passes.
func awaitReady(child pid: pid_t, within timeout: Duration, every interval: Duration,
                _ ready: () async -> Bool) async throws -> ChildReadiness {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await ready() { return .ready }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { return .exited }
        try await Task.sleep(for: interval)
    }
    return .timedOut
}

/// Waits for the started child `pid` to exit, asking every 20 ms without blocking a thread, and
/// answers its exit status (128 + the signal's number when a signal ended it). When `timeout`
/// passes or the test is cancelled (its time limit), the child is killed and waited for, and the
/// wait throws: a child that never exits cannot hold the test run.
func awaitExit(of pid: pid_t, within timeout: Duration) async throws -> Int32 {
    let deadline = ContinuousClock.now + timeout
    var status: Int32 = 0
    while true {
        let waited = waitpid(pid, &status, WNOHANG)
        if waited == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
        if waited == -1 && errno != EINTR {
            throw ChildProcess.Failure(description: "waiting for child \(pid): \(String(cString: strerror(errno)))")
        }
        if ContinuousClock.now >= deadline || Task.isCancelled {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            throw ChildProcess.Failure(description: "child \(pid) did not exit within \(timeout); killed")
        }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

/// Makes a spawned child start in `directory` (glibc 2.29's `posix_spawn_file_actions_addchdir_np`,
/// looked up at run time as ``spawnClosesDescriptors(from:_:)`` looks up its function).
func spawnChangesDirectory(to directory: String, _ actions: inout posix_spawn_file_actions_t) throws {
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
        throw ChildProcess.Failure(description: "posix_spawn_file_actions_addchdir_np is missing (glibc older than 2.29)")
    }
    let result = directory.withCString { unsafeBitCast(symbol, to: AddChdir.self)(&actions, $0) }
    guard result == 0 else { throw ChildProcess.Failure(description: "cannot start a child in \(directory): error \(result)") }
}
