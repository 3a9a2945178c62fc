import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A real headless Chromium, driven over the W3C WebDriver protocol by `chromedriver` (Debian's
/// `chromium` and `chromium-driver`): JSON over HTTP, so the tests need no Selenium.
///
/// `.ci/run` installs both; where they are missing, the browser tests fail and say what to install.
final class WebDriver: @unchecked Sendable {
    // @unchecked: `session` is set once in `start`, before the value is returned and shared, and
    // only read afterwards; requests go through AsyncHTTPClient, which is thread-safe.
    private let pid: pid_t
    private let base: URL
    private var session = ""

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let driver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why the browser tests cannot run here; nil when they can.
    static var missing: String? {
        if chromium == nil { return "chromium is not installed (apt-get install chromium)" }
        if driver == nil { return "chromedriver is not installed (apt-get install chromium-driver)" }
        return nil
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private init(pid: pid_t, port: Int) {
        self.pid = pid
        self.base = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts chromedriver on a free port and opens a browser of `width`×`height`.
    static func start(width: Int = 1400, height: Int = 900) async throws -> WebDriver {
        guard let driver, let chromium else { throw Failure(description: missing ?? "no browser") }
        let port = try freeLoopbackPort()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        spawnClosesDescriptors(from: 3, &actions)
        let pid = try spawnChild(driver, ["--port=\(port)", "--allowed-ips=127.0.0.1"], environment: [:], searchingPath: false, &actions)
        let webDriver = WebDriver(pid: pid, port: port)
        let readiness = try await awaitReady(child: pid, within: .seconds(30), every: .milliseconds(100)) {
            ((try? await webDriver.call("GET", "/status"))?["value"] as? [String: Any])?["ready"] as? Bool == true
        }
        guard readiness == .ready else {
            await webDriver.quit()
            throw Failure(description: "chromedriver did not start (\(readiness))")
        }
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": chromium, "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                                               "--window-size=\(width),\(height)", "--lang=en-US"]],
            "goog:loggingPrefs": ["browser": "ALL"],
        ]]]
        let created = try await webDriver.call("POST", "/session", capabilities)
        guard let id = (created["value"] as? [String: Any])?["sessionId"] as? String else {
            await webDriver.quit()
            throw Failure(description: "no session: \(created)")
        }
        webDriver.session = id
        return webDriver
    }

    /// Closes the browser and stops chromedriver (killed when it does not stop within 5 s).
    func quit() async {
        if !session.isEmpty {
            _ = try? await HTTPClient.shared.execute(HTTPClientRequest(url: base.absoluteString + "/session/\(session)").deleting(),
                                                     timeout: .seconds(10))
        }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<50 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    // MARK: Commands

    func open(_ url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    /// The first element matching `css`, waiting up to `timeout` for it to appear.
    func element(_ css: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = try? await command("POST", "/element", ["using": "css selector", "value": css]),
               let value = found["value"] as? [String: Any], let id = value.values.first as? String {
                return id
            }
            guard ContinuousClock.now < deadline else { throw Failure(description: "no element \(css) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func click(_ css: String) async throws {
        let id = try await element(css)
        _ = try await command("POST", "/element/\(id)/click", [:])
    }

    func type(_ text: String, into css: String, clearing: Bool = true) async throws {
        let id = try await element(css)
        if clearing { _ = try await command("POST", "/element/\(id)/clear", [:]) }
        _ = try await command("POST", "/element/\(id)/value", ["text": text])
    }

    /// Presses keys (W3C key codes such as `WebDriver.tab`, `WebDriver.enter`) in the focused element.
    func press(_ keys: String) async throws {
        let active = try await command("GET", "/element/active")
        guard let value = active["value"] as? [String: Any], let id = value.values.first as? String else {
            throw Failure(description: "nothing has the focus")
        }
        _ = try await command("POST", "/element/\(id)/value", ["text": keys])
    }

    static let tab = "\u{E004}"
    static let enter = "\u{E007}"

    func text(_ css: String) async throws -> String {
        let id = try await element(css)
        return try await command("GET", "/element/\(id)/text")["value"] as? String ?? ""
    }

    /// Runs `script` in the page (a function body: `return …`) and returns its JSON value.
    @discardableResult
    func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": arguments])["value"]
    }

    /// Runs `script` as an asynchronous function body, which ends by calling its last argument
    /// with the value (`arguments[arguments.length - 1](value)`), and returns that value.
    @discardableResult
    func run(_ script: String, asyncWith arguments: [Any]) async throws -> Any? {
        try await command("POST", "/execute/async", ["script": script, "args": arguments])["value"]
    }

    /// Waits until `script` returns true.
    func wait(until script: String, timeout: Duration = .seconds(30), _ what: String) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await run(script) as? Bool != true {
            guard ContinuousClock.now < deadline else { throw Failure(description: "waited \(timeout) for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Resizes the browser's window, as a phone's width or a desktop's.
    func resize(width: Int, height: Int) async throws {
        _ = try await command("POST", "/window/rect", ["width": width, "height": height])
    }

    /// Saves a PNG of the window to `path`.
    func screenshot(to path: String) async throws {
        guard let encoded = try await command("GET", "/screenshot")["value"] as? String, let data = Data(base64Encoded: encoded) else {
            throw Failure(description: "no screenshot")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The browser's console and network log since the last call: (level, source-prefixed message).
    func log() async throws -> [(level: String, message: String)] {
        let entries = try await command("POST", "/se/log", ["type": "browser"])["value"] as? [[String: Any]] ?? []
        return entries.map { ($0["level"] as? String ?? "", $0["message"] as? String ?? "") }
    }

    // MARK: Transport

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        try await call(method, "/session/\(session)" + path, body)
    }

    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: base.absoluteString + path)
        request.method = .init(rawValue: method)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: body))))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard response.status.code < 300 else {
            throw Failure(description: "\(method) \(path): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return object
    }
}

private extension HTTPClientRequest {
    func deleting() -> HTTPClientRequest {
        var request = self
        request.method = .DELETE
        return request
    }
}
