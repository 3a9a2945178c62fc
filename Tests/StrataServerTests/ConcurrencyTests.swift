import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Many clients over real sockets: optimistic concurrency loses no update, and writers queue inside
/// the server instead of failing (no SQLITE_BUSY reaches a client).
@Suite("Concurrency")
struct ConcurrencyTests {
    static let clients = 32
    static let increments = 20

    @Test("32 clients each increment a counter 20 times with GET + If-Match + retry on 412: exactly 640", arguments: Backend.allCases)
    func counter(_ backend: Backend) async throws {
        let configuration = try await TestDatabases.shared.configuration(backend)
        try await prepareLedger(configuration, backend: backend, requireIfMatch: ["ledger"])
        let app = try await buildApplication(configuration, logger: TestDatabases.logger)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let stats = try await app.test(.live) { client in
            let port = try #require(client.port)
            return try await withThrowingTaskGroup(of: ClientStats.self) { group in
                for _ in 0..<Self.clients {
                    group.addTask { try await Self.incrementer(port: port) }
                }
                var total = ClientStats()
                for try await stats in group { total.add(stats) }
                let final = try await AdministratorTestClient(base: client).get("/ledger/Counters(1)")
                total.finalValue = final.json["d"]["value"]
                return total
            }
        }
        #expect(stats.finalValue == .number(String(Self.clients * Self.increments)))
        #expect(stats.successes == Self.clients * Self.increments)
        #expect(stats.unexpected.isEmpty, "unexpected answers: \(stats.unexpected.prefix(5))")
    }

    struct ClientStats: Sendable {
        var successes = 0
        var conflicts = 0
        var unexpected: [String] = []
        var finalValue: JSONValue?

        mutating func add(_ other: ClientStats) {
            successes += other.successes
            conflicts += other.conflicts
            unexpected += other.unexpected
        }
    }

    /// One client on its own connection: read, increment with If-Match, retry when another won.
    ///
    /// A connection the server closed before a request was written (it closes connections silent
    /// for its idle timeout, which a client starved of CPU on a loaded machine can reach) is opened
    /// again, as HTTP clients do: the request never reached the server, so nothing is sent twice.
    static func incrementer(port: Int) async throws -> ClientStats {
        let progress = Progress()
        var reconnects = 0
        while !progress.done {
            do {
                try await increments(port: port, progress: progress)
            } catch ChannelError.ioOnClosedChannel where reconnects < 20 {
                reconnects += 1
            }
        }
        return progress.state.withLock { $0.stats }
    }

    /// What one client has done so far, kept across its connections.
    final class Progress: Sendable {
        struct State {
            var stats = ClientStats()
            var attempts = 0
        }

        let state = Mutex(State())

        var done: Bool {
            state.withLock { $0.stats.successes >= increments || $0.attempts >= 5_000 || $0.stats.unexpected.count >= 10 }
        }
    }

    private static func increments(port: Int, progress: Progress) async throws {
        // Each answer may wait behind 31 other writers for the one SQLite writer, on two cores
        // busy with the rest of the suite: 60 s per read instead of the client's 15.
        try await TestClient.withClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(60))) { client in
            while !progress.done {
                progress.state.withLock { $0.attempts += 1 }
                let read = try await client.execute(TestClient.Request("/ledger/Counters(1)", method: .get, authority: "localhost",
                                                                       headers: [.authorization: AdministratorTestClient.authorization]))
                guard read.status == .ok, let tag = read.headers[.eTag], let body = read.body,
                      let value = try? JSONValue.parse(Array(body.readableBytesView))["d"]?["value"]?.int64Value else {
                    progress.state.withLock { $0.stats.unexpected.append("GET \(read.status.code)") }
                    continue
                }
                let update = try await client.execute(TestClient.Request(
                    "/ledger/Counters(1)", method: HTTPRequest.Method("MERGE")!, authority: "localhost",
                    headers: [.ifMatch: tag, .contentType: "application/json", .authorization: AdministratorTestClient.authorization],
                    body: ByteBuffer(string: #"{"value":\#(value + 1)}"#)))
                progress.state.withLock { state in
                    switch update.status.code {
                    case 204: state.stats.successes += 1
                    case 412: state.stats.conflicts += 1
                    default: state.stats.unexpected.append("MERGE \(update.status.code) \(update.body.map { String(buffer: $0) } ?? "")")
                    }
                }
            }
        }
    }
}
