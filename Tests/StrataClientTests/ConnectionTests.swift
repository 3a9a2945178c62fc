import Foundation
import StrataClient
import Testing

@Suite("Connection")
struct ConnectionTests {
    @Test("Relative, root-relative and absolute paths resolve against the base URL")
    func resolution() throws {
        let connection = Connection(baseURL: URL(string: "http://example.invalid:8080/cardealer")!)
        #expect(connection.baseURL.absoluteString == "http://example.invalid:8080/cardealer/")
        #expect(try connection.url(for: "").absoluteString == "http://example.invalid:8080/cardealer/")
        #expect(try connection.url(for: "Person(1)").absoluteString == "http://example.invalid:8080/cardealer/Person(1)")
        #expect(try connection.url(for: "Person?$top=1").absoluteString == "http://example.invalid:8080/cardealer/Person?$top=1")
        #expect(try connection.url(for: "/auth/token").absoluteString == "http://example.invalid:8080/auth/token")
        #expect(try connection.url(for: "http://other.invalid/x?y=1").absoluteString == "http://other.invalid/x?y=1")
    }

    @Test("Observers and event streams see willSend, didReceive, progress, didFinish in order")
    func eventOrder() async throws {
        let server = try await LiveServer.shared()
        let connection = Connection(baseURL: server.rootURL)
        let recorder = EventRecorder()
        await connection.addObserver(recorder)
        let events = await connection.events()
        let response = try await connection.send(StrataRequest(.get, "cardealer/Person?$top=3"))
        #expect(response.status == 200)
        let failure = try closedPort()
        await #expect(throws: StrataError.self) { try await connection.send(StrataRequest(.get, "http://127.0.0.1:\(failure)/")) }

        let expected = ["willSend 1", "didReceive 1 200", "progress 1 download", "didFinish 1 200", "willSend 2", "didFail 2 network error"]
        #expect(collapsingProgress(recorder.log) == expected)
        var streamed: [String] = []
        for await event in events {
            streamed.append(event.summary)
            if case .didFail = event { break }
        }
        #expect(collapsingProgress(streamed) == expected)
    }

    @Test("The last exchange keeps the request as sent, the response and its body")
    func lastExchange() async throws {
        let server = try await LiveServer.shared()
        let connection = Connection(baseURL: server.rootURL,
                                    configuration: ConnectionConfiguration(defaultHeaders: ["Accept": "application/json", "X-Client": "tests"]))
        #expect(await connection.lastExchange == nil)
        _ = try await connection.send(StrataRequest(.get, "cardealer/Car(5)", headers: ["X-Client": "override", "MaxDataServiceVersion": "1.0"]))
        let exchange = try #require(await connection.lastExchange)
        #expect(exchange.request.url.absoluteString == "http://localhost:\(server.port)/cardealer/Car(5)")
        #expect(exchange.request.method == .get)
        #expect(exchange.request.headers["x-client"] == "override")
        #expect(exchange.request.headers.values(for: "X-Client") == ["override"])
        #expect(exchange.request.headers["Accept"] == "application/json")
        #expect(exchange.response?.status == 200)
        #expect(exchange.response?.headers["DataServiceVersion"] == "1.0;")
        #expect(exchange.response?.text.contains("Mustang") == true)
        #expect(exchange.error == nil)
        #expect(exchange.duration >= 0)
    }

    @Test("Cancelling the task cancels the request at once")
    func cancellation() async throws {
        let silent = try SilentListener()
        // A timeout far beyond the test: when the tests start, CPU-bound suites can hold the
        // cooperative pool for many seconds, and only a request the cancellation ended may pass.
        let connection = Connection(baseURL: silent.url, configuration: ConnectionConfiguration(timeout: 300))
        let recorder = EventRecorder()
        await connection.addObserver(recorder)
        let started = ContinuousClock.now
        let task = Task { try await connection.send(StrataRequest(.get, "slow")) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a request to a silent server finished")
        } catch let error as StrataError {
            // An idle timeout would end it as `.timedOut`.
            #expect(error.kind == .cancelled)
        }
        #expect(ContinuousClock.now - started < .seconds(120), "the cancellation ended it, not the 300 s timeout")
        #expect(recorder.log == ["willSend 1", "didFail 1 cancelled"])
        #expect(await connection.lastExchange?.error?.kind == .cancelled)

        // A task cancelled before it sends fails without touching the network.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await connection.send(StrataRequest(.get, "never"))
        }
        await #expect(throws: StrataError.self) { try await early.value }
    }

    @Test("A silent server times out with a timedOut error")
    func timeout() async throws {
        let silent = try SilentListener()
        let connection = Connection(baseURL: silent.url, configuration: ConnectionConfiguration(timeout: 300))
        let started = ContinuousClock.now
        do {
            _ = try await connection.send(StrataRequest(.get, "slow", timeout: 1))
            Issue.record("a silent server answered")
        } catch {
            #expect(error.kind == .timedOut)
        }
        // The request's 1 s, not the connection's 300 s (with room for a starved cooperative pool).
        #expect(ContinuousClock.now - started < .seconds(120))
    }

    @Test("Download progress counts up to the body's length")
    func downloadProgress() async throws {
        let server = try await LiveServer.shared()
        let connection = Connection(baseURL: server.rootURL)
        let recorder = ProgressRecorder()
        let response = try await connection.send(StrataRequest(.get, "cardealer/PersonCarMaintenance", headers: ["MaxDataServiceVersion": "1.0"]),
                                                 progress: { recorder.add($0) })
        let reports = recorder.reports
        #expect(response.body.count > 100_000)
        #expect(reports.count > 2)
        #expect(reports.allSatisfy { $0.direction == .download })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
        #expect(reports.last?.completedBytes == Int64(response.body.count))
    }

    @Test("An authenticator's credentials are sent but never shown in events or the last exchange")
    func redaction() async throws {
        let server = try await LiveServer.shared()
        let authenticator = StaticAuthenticator(value: "Bearer secret-token")
        let connection = Connection(baseURL: server.rootURL, configuration: ConnectionConfiguration(authenticator: authenticator))
        let events = await connection.events()
        _ = try await connection.send(StrataRequest(.get, "cardealer/Car(1)"))
        _ = try await connection.send(StrataRequest(.get, "cardealer/Car(2)", isAuthenticated: false))
        var shown: [String?] = []
        for await event in events {
            if case .willSend(let request) = event { shown.append(request.headers["Authorization"]) }
            if case .didFinish(let request, _) = event, request.id == 2 { break }
        }
        #expect(shown == ["Bearer <redacted>", nil])
        #expect(authenticator.calls == 1)
    }
}

/// Collects progress reports from the transfer callback.
///
/// `@unchecked Sendable`: `values` is only touched while holding `lock`.
final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [TransferProgress] = []
    func add(_ value: TransferProgress) { lock.lock(); values.append(value); lock.unlock() }
    var reports: [TransferProgress] { lock.lock(); defer { lock.unlock() }; return values }
}

/// Hands out a fixed credential and counts how often it was asked.
///
/// `@unchecked Sendable`: `count` is only touched while holding `lock`.
final class StaticAuthenticator: RequestAuthenticator, @unchecked Sendable {
    let value: String
    private let lock = NSLock()
    private var count = 0
    init(value: String) { self.value = value }
    var calls: Int { lock.lock(); defer { lock.unlock() }; return count }

    func authorization() async throws(StrataError) -> String? {
        lock.withLock { count += 1 }
        return value
    }

    func refreshAfterRejection(of authorization: String?) async throws(StrataError) -> Bool { false }
}
