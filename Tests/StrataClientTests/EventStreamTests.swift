import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import StrataClient
import StrataCore
import Synchronization
import Testing

/// ``EventStream`` and ``ChangeStream`` over real sockets, against small Hummingbird apps that
/// script the stream byte by byte: dropped connections, `retry:`, `Last-Event-ID`, `gone`, error
/// answers, silence, refused credentials.
@Suite("Event streams")
struct EventStreamTests {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let authorization = HTTPField.Name("Authorization")!
    static let goneData = #"{"error":{"code":"DeltaTokenGone","message":{"lang":"en-US","value":"The token expired; read the tables again."}}}"#

    /// What the server saw of each connection.
    struct Seen: Sendable {
        var lastEventID: String?
        var authorization: String?
        var query: String
        var at: ContinuousClock.Instant
    }

    final class Log: Sendable {
        let seen = NIOLockedValueBox<[Seen]>([])
        /// Records a connection and returns its number, from 1.
        func record(_ request: Request) -> Int {
            seen.withLockedValue {
                $0.append(Seen(lastEventID: request.headers[EventStreamTests.lastEventID],
                               authorization: request.headers[EventStreamTests.authorization],
                               query: request.uri.query ?? "", at: .now))
                return $0.count
            }
        }
        var all: [Seen] { seen.withLockedValue { $0 } }
    }

    static func stream(_ parts: [String], pauseBetween: Duration = .milliseconds(20), thenFail: Bool = false) -> Hummingbird.Response {
        Hummingbird.Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: ResponseBody { writer in
            for part in parts {
                try await writer.write(ByteBuffer(string: part))
                try await Task.sleep(for: pauseBetween)
            }
            if thenFail {
                // The connection breaks mid-stream: no chunked terminator, the socket closes.
                throw CancellationError()
            }
            try await writer.finish(nil)
        })
    }

    static func event(_ id: String, _ data: String, type: String = "changes", newline: String = "\n") -> String {
        "id: \(id)\(newline)event: \(type)\(newline)data: \(data)\(newline)\(newline)"
    }

    static func collect(_ stream: EventStream) async -> (events: [ServerSentEvent], error: (any Error)?) {
        var events: [ServerSentEvent] = []
        do {
            for try await event in stream { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    /// Reconnects are fast in tests only if `retry:` is honoured: the default wait is far longer.
    static let slowDefault = EventStreamConfiguration(initialRetry: .seconds(30), jitter: 0, idleTimeout: 20)

    @Test("A dropped stream reconnects after the server's retry time with Last-Event-ID, and gone stops it for good")
    func reconnectsWithLastEventID() async throws {
        let log = Log()
        let router = Router()
        router.get("/feed") { request, _ -> Hummingbird.Response in
            switch log.record(request) {
            case 1:
                // Broken off after three events.
                return Self.stream(["retry: 150\n\n", ": keep-alive\n\n", Self.event("t1", "1"), Self.event("t2", "2"),
                                    Self.event("t3", "3")], thenFail: true)
            case 2:
                // CRLF endings, split inside CRLF and inside a field; then a clean end.
                return Self.stream(["id: t4\r", "\nevent: changes\r\nda", "ta: 4\r\n\r\n", Self.event("t5", "5", newline: "\r\n")])
            default:
                return Self.stream([": keep-alive\n\n", "event: gone\ndata: \(Self.goneData)\n\n", Self.event("t6", "never")])
            }
        }
        try await withRouter(router) { url in
            let connection = Connection(baseURL: url)
            let started = ContinuousClock.now
            let (events, error) = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "feed"),
                                                                 configuration: Self.slowDefault))
            #expect(events.map(\.data) == ["1", "2", "3", "4", "5"])
            #expect(events.map(\.id) == ["t1", "t2", "t3", "t4", "t5"])
            #expect(events.allSatisfy { $0.type == "changes" })
            let gone = try #require(error as? StrataError)
            #expect(gone.kind == .deltaTokenGone)
            #expect(gone.code == "DeltaTokenGone")
            #expect(gone.message == "The token expired; read the tables again.")
            #expect(ContinuousClock.now - started < .seconds(15))
            // No reconnect after gone.
            try await Task.sleep(for: .milliseconds(400))
            let seen = log.all
            #expect(seen.map(\.lastEventID) == [nil, "t3", "t5"])
            #expect(seen.count == 3)
            // The waits are the server's 150 ms (the connections themselves last about 100 ms).
            if seen.count == 3 {
                #expect(seen[1].at - seen[0].at >= .milliseconds(150))
                #expect(seen[2].at - seen[1].at >= .milliseconds(150))
            }
        }
    }

    @Test("A 4xx answer stops the stream with the server's error; 410 is deltaTokenGone")
    func clientErrorsStop() async throws {
        let log = Log()
        let router = Router()
        router.get("/forbidden") { request, _ -> Hummingbird.Response in
            _ = log.record(request)
            return Self.odataError(403, "Forbidden", "You may not read Car.")
        }
        router.get("/gone") { request, _ -> Hummingbird.Response in
            _ = log.record(request)
            return Self.odataError(410, "DeltaTokenGone", "The token is too old; read the tables again.")
        }
        router.get("/html") { request, _ -> Hummingbird.Response in
            _ = log.record(request)
            return Hummingbird.Response(status: .ok, headers: [.contentType: "text/html"], body: ResponseBody(byteBuffer: ByteBuffer(string: "<html>")))
        }
        try await withRouter(router) { url in
            let connection = Connection(baseURL: url)
            let forbidden = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "forbidden"), configuration: Self.slowDefault))
            #expect((forbidden.error as? StrataError)?.kind == .forbidden)
            #expect((forbidden.error as? StrataError)?.message == "You may not read Car.")
            let gone = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "gone"), configuration: Self.slowDefault))
            #expect((gone.error as? StrataError)?.kind == .deltaTokenGone)
            #expect((gone.error as? StrataError)?.status == 410)
            let html = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "html"), configuration: Self.slowDefault))
            #expect((html.error as? StrataError)?.kind == .invalidResponse)
            #expect(log.all.count == 3)
        }
    }

    @Test("503 with Retry-After and a silent stream (idle timeout) reconnect; the wait doubles only while failing")
    func retriesServerErrorsAndSilence() async throws {
        let log = Log()
        let router = Router()
        router.get("/feed") { request, _ -> Hummingbird.Response in
            switch log.record(request) {
            case 1:
                var response = Self.odataError(503, "Unavailable", "Starting.")
                response.headers[.retryAfter] = "0"
                return response
            case 2:
                // One event, then silence longer than the client's idle timeout.
                return Self.stream(["retry: 50\n\n" + Self.event("a", "x"), ": too late\n\n"], pauseBetween: .seconds(16))
            default:
                return Self.stream(["event: gone\ndata: {}\n\n"])
            }
        }
        try await withRouter(router) { url in
            let connection = Connection(baseURL: url)
            let states = NIOLockedValueBox<[String]>([])
            // The idle timeout also bounds waiting for an answer: on a loaded machine (the whole
            // suite on two cores) the in-process server once took longer than 1 s, and once longer
            // than 4 s, to answer. The silence above is twice the timeout.
            var configuration = EventStreamConfiguration(initialRetry: .seconds(30), jitter: 0, idleTimeout: 8)
            configuration.onStateChange = { state in
                let name = switch state {
                case .connecting: "connecting"
                case .open: "open"
                case .waiting(_, let error): "waiting(\(error?.kind.description ?? "closed"))"
                }
                states.withLockedValue { $0.append(name) }
            }
            let (events, error) = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "feed"), configuration: configuration))
            #expect(events.map(\.data) == ["x"])
            #expect((error as? StrataError)?.kind == .deltaTokenGone)
            #expect(log.all.map(\.lastEventID) == [nil, nil, "a"])
            #expect(states.withLockedValue { $0 } == ["connecting", "waiting(server error)", "connecting", "open", "waiting(timed out)", "connecting", "open"])
        }
        // The backoff: the server's time doubled per failure in a row, capped, jitter only shortening it.
        let configuration = EventStreamConfiguration(maximumRetry: .seconds(10), jitter: 0)
        #expect(configuration.reconnectDelay(retry: .seconds(1), failures: 1) == .seconds(1))
        #expect(configuration.reconnectDelay(retry: .seconds(1), failures: 3) == .seconds(4))
        #expect(configuration.reconnectDelay(retry: .seconds(1), failures: 9) == .seconds(10))
        var jittered = configuration
        jittered.jitter = 0.5
        for _ in 0..<50 {
            let delay = jittered.reconnectDelay(retry: .seconds(2), failures: 1)
            #expect(delay >= .seconds(1) && delay <= .seconds(2))
        }
    }

    @Test("A 401 refreshes the credentials through the authenticator and reconnects at once with the new ones")
    func refreshesCredentials() async throws {
        let log = Log()
        let router = Router()
        router.get("/feed") { request, _ -> Hummingbird.Response in
            _ = log.record(request)
            guard request.headers[Self.authorization] == "Bearer fresh" else {
                return Self.odataError(401, "Unauthorized", "The token expired.")
            }
            return Self.stream([Self.event("1", "ok"), "event: gone\ndata: {}\n\n"])
        }
        try await withRouter(router) { url in
            let authenticator = RotatingAuthenticator()
            let connection = Connection(baseURL: url, configuration: ConnectionConfiguration(authenticator: authenticator))
            let (events, error) = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "feed"), configuration: Self.slowDefault))
            #expect(events.map(\.data) == ["ok"])
            #expect((error as? StrataError)?.kind == .deltaTokenGone)
            #expect(log.all.map(\.authorization) == ["Bearer stale", "Bearer fresh"])
            #expect(authenticator.refreshes == 1)
        }
    }

    @Test("Ending the iteration closes the connection; a 410 without an OData body still says to read again")
    func stoppingClosesTheConnection() async throws {
        let closed = NIOLockedValueBox(false)
        let log = Log()
        let router = Router()
        router.get("/endless") { request, _ -> Hummingbird.Response in
            _ = log.record(request)
            return Hummingbird.Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                do {
                    for index in 0..<400 {
                        try await writer.write(ByteBuffer(string: Self.event("\(index)", "\(index)")))
                        try await Task.sleep(for: .milliseconds(25))
                    }
                    try await writer.finish(nil)
                } catch {
                    closed.withLockedValue { $0 = true }
                    throw error
                }
            })
        }
        router.get("/plain410") { _, _ -> Hummingbird.Response in
            Hummingbird.Response(status: .gone, body: ResponseBody(byteBuffer: ByteBuffer(string: "gone")))
        }
        try await withRouter(router) { url in
            let connection = Connection(baseURL: url)
            var seen: [String] = []
            for try await event in EventStream(connection: connection, request: StrataRequest(.get, "endless"), configuration: Self.slowDefault) {
                seen.append(event.data)
                if seen.count == 3 { break }
            }
            #expect(seen == ["0", "1", "2"])
            // The server notices within a few writes (the socket is closed, not left to time out).
            let deadline = ContinuousClock.now + .seconds(5)
            while !closed.withLockedValue({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(closed.withLockedValue { $0 })
            #expect(log.all.count == 1)
            let plain = await Self.collect(EventStream(connection: connection, request: StrataRequest(.get, "plain410"), configuration: Self.slowDefault))
            let error = try #require(plain.error as? StrataError)
            #expect(error.kind == .deltaTokenGone)
            #expect(error.message.contains("read the data again"))
        }
    }

    @Test("The typed change stream: ready, batches with deleted keys and the fields of earlier events, then gone")
    func changeStream() async throws {
        let log = Log()
        let router = Router()
        router.get("/cardealer/$feed") { request, _ -> Hummingbird.Response in
            _ = log.record(request)
            let fields = #"[{"name":"carID","type":"Edm.Int32","key":true},{"name":"make","type":"Edm.String"}]"#
            return Self.stream([
                "retry: 2000\n\n",
                Self.event("T1", "{}", type: "ready"),
                Self.event("T2", #"{"tables":[{"name":"Car","fields":\#(fields),"rows":[[5,"Audi"]],"deleted":[[9]]}]}"#),
                ": keep-alive\n\n",
                Self.event("T3", #"{"tables":[{"name":"Car","rows":[],"deleted":[[5]]}]}"#),
                "event: gone\ndata: \(Self.goneData)\n\n",
            ])
        }
        try await withRouter(router) { url in
            let service = DataService(connection: Connection(baseURL: url), path: "cardealer")
            var received: [ChangeStreamEvent] = []
            for try await event in service.changeStream(sets: ["Car", "Person"], filter: "make eq 'Audi'", since: "T0") {
                received.append(event)
            }
            #expect(received.count == 4)
            guard received.count == 4 else { return }
            guard case .ready(let token) = received[0] else { Issue.record("not ready: \(received[0])"); return }
            #expect(token == "T1")
            guard case .changes(let first) = received[1], case .changes(let second) = received[2] else {
                Issue.record("not changes: \(received)")
                return
            }
            #expect(first.token == "T2")
            #expect(first.tables.first?.rows == [[.int32(5), .string("Audi")]])
            #expect(first.tables.first?.deleted == [[.int32(9)]])
            #expect(second.token == "T3")
            #expect(second.tables.first?.fields.map(\.name) == ["carID", "make"])
            #expect(second.tables.first?.deleted == [[.int32(5)]])
            guard case .gone(let error) = received[3] else { Issue.record("not gone: \(received[3])"); return }
            #expect(error.kind == .deltaTokenGone)
            let query = log.all.first?.query ?? ""
            #expect(query.contains("sets=Car,Person"))
            #expect(query.contains("since=T0"))
            #expect(query.contains("$filter=make%20eq%20") || query.contains("%24filter=make%20eq%20"))
        }
    }

    static func odataError(_ status: Int, _ code: String, _ message: String) -> Hummingbird.Response {
        Hummingbird.Response(status: .init(code: status), headers: [.contentType: "application/json"],
                             body: ResponseBody(byteBuffer: ByteBuffer(bytes: ODataError(status: status, code: code, message: message).jsonBody)))
    }
}

/// Hands out a stale token until asked to refresh.
final class RotatingAuthenticator: RequestAuthenticator {
    private let state = Mutex((token: "stale", refreshes: 0))

    var refreshes: Int { state.withLock { $0.refreshes } }

    func authorization() async throws(StrataError) -> String? {
        "Bearer " + state.withLock { $0.token }
    }

    func refreshAfterRejection(of authorization: String?) async throws(StrataError) -> Bool {
        state.withLock {
            $0.token = "fresh"
            $0.refreshes += 1
        }
        return true
    }
}
