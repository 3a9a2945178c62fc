import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The change stream (`$feed`, Server-Sent Events) over real sockets: committed changes in commit
/// order, one event per transaction, resuming with `Last-Event-ID` without loss or duplicates.
@Suite("Feed: change stream")
struct FeedStreamTests {
    static let admin = AdministratorTestClient.authorization

    static func post(_ port: Int, _ uri: String, _ json: String) async throws {
        let response = try await LoopbackHTTP.json(port: port, .post, uri, basic: admin, json)
        #expect(response.status == .created || response.status == .ok || response.status == .accepted, "\(uri): \(response.text)")
    }

    /// The names in a `changes` event's Item rows.
    static func itemNames(_ event: EventStreamReader.Event) -> [String] {
        event.tables.filter { $0[member: "name"]?.stringValue == "Item" }.flatMap { FeedTablesTests.rows($0) }
            .compactMap { row in row.first { if case .string(let text) = $0 { text.hasPrefix("n-") } else { false } }?.stringValue }
    }

    @Test("A stream from now: ready, then each commit as it happens, a $batch changeset as one event", arguments: Backend.allCases)
    func live(_ backend: Backend) async throws {
        try await withLiveServer(backend, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { port in
            let reader = try await EventStreamReader.open(port: port, path: "/feed/$feed?sets=Item,Tag")
            defer { reader.close() }
            #expect(reader.status == 200, "\(reader.head)")
            #expect(reader.head.lowercased().contains("text/event-stream"))
            let ready = await reader.next(1)
            #expect(ready.first?.event == "ready")
            #expect(ready.first?.id?.isEmpty == false)

            try await Self.post(port, "/feed/Item", #"{"owner":"ann","name":"n-one","price":1}"#)
            let one = await reader.next(1)
            #expect(one.first?.event == "changes")
            #expect(one.first.map(Self.itemNames) == ["n-one"])

            // Three inserts in one changeset: one transaction, one event.
            let boundary = "batch_1", changeset = "changeset_1"
            var body = "--\(boundary)\r\nContent-Type: multipart/mixed; boundary=\(changeset)\r\n\r\n"
            for index in 0..<3 {
                body += "--\(changeset)\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
                body += "POST Item HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{\"owner\":\"ann\",\"name\":\"n-b\(index)\",\"price\":\(index)}\r\n"
            }
            body += "--\(changeset)--\r\n--\(boundary)--\r\n"
            let batch = try await LoopbackHTTP.send(port: port, .post, "/feed/$batch",
                                                    headers: [.authorization: Self.admin, .contentType: "multipart/mixed; boundary=\(boundary)"],
                                                    body: Array(body.utf8))
            #expect(batch.status == .accepted, "\(batch.text)")
            let batched = await reader.next(1)
            #expect(batched.first.map { Self.itemNames($0).sorted() } == ["n-b0", "n-b1", "n-b2"])
        }
    }

    @Test("A subscriber dropped mid-stream resumes with Last-Event-ID and sees every change exactly once", arguments: Backend.allCases)
    func resume(_ backend: Backend) async throws {
        try await withLiveServer(backend, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { port in
            let total = 60
            let first = try await EventStreamReader.open(port: port, path: "/feed/$feed?sets=Item")
            let ready = await first.next(1)
            #expect(ready.first?.event == "ready")
            let writer = Task {
                for index in 0..<total {
                    try await Self.post(port, "/feed/Item", #"{"owner":"ann","name":"n-\#(index)","price":\#(index)}"#)
                }
            }
            var names: [String] = []
            let before = await first.next(10, timeout: .seconds(60))
            #expect(before.count == 10)
            names += before.flatMap(Self.itemNames)
            first.close()
            let lastID = try #require(before.last?.id)
            try await writer.value
            let second = try await EventStreamReader.open(port: port, path: "/feed/$feed?sets=Item", headers: ["Last-Event-ID": lastID])
            defer { second.close() }
            #expect(second.status == 200)
            while names.count < total {
                let more = await second.next(1, timeout: .seconds(30))
                guard let event = more.first else { break }
                #expect(event.event == "changes")
                names += Self.itemNames(event)
            }
            #expect(names.count == total, "every change once: \(names.count) of \(total)")
            #expect(Set(names).count == names.count, "no duplicates")
            #expect(Set(names) == Set((0..<total).map { "n-\($0)" }))
        }
    }

    @Test("A subscriber that hangs up leaves the hub at once, not at the next heartbeat", arguments: Backend.allCases)
    func hangUp(_ backend: Backend) async throws {
        try await PostgresSlots.run(backend) {
            var configuration = try await TestDatabases.shared.configuration(backend)
            configuration.port = 0
            let prepared = configuration
            defer { try? FileManager.default.removeItem(atPath: prepared.dataDirectory) }
            let built = try await makeApplication(prepared, logger: TestDatabases.logger)
            try await built.application.test(.live) { client in
                let reader = try await EventStreamReader.open(port: try #require(client.port), path: "/cardealer/$feed?sets=Person",
                                                              headers: ["Authorization": AdministratorTestClient.authorization])
                #expect(await reader.next(1).first?.event == "ready")
                let hub = try #require(built.runtime.feedHub(for: "cardealer"))
                #expect(await hub.subscriberCount == 1)
                reader.close()
                let deadline = ContinuousClock.now + .seconds(5)
                while await hub.subscriberCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                #expect(await hub.subscriberCount == 0, "gone well before the 15 s heartbeat")
            }
        }
    }

    @Test("Refusals before the stream starts: unknown or untracked sets, a bad token, $filter on several sets", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        let model = "tables:\n  Item: { track: true }\n"
        try await withServer(backend, demo: false, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0, model: model) }) { client in
            let cases: [(String, HTTPResponse.Status)] = [
                ("/feed/$feed?sets=Nope", .notFound), ("/feed/$feed?sets=Tag", .badRequest), ("/feed/$feed", .badRequest),
                ("/feed/$feed?sets=Item&since=AAAA", .gone), ("/feed/$feed?sets=Item,Item", .badRequest),
                ("/feed/$feed?sets=Item&$orderby=name", .badRequest), ("/feed/$feed?sets=Item&x=1", .badRequest),
            ]
            for (uri, status) in cases {
                let answer = try await client.execute(uri: uri, method: .get, headers: [.accept: "text/event-stream"])
                #expect(answer.status == status, "\(uri): \(answer.text)")
                #expect(answer.odataError != nil, "\(uri)")
            }
            // $filter and $select name one set's properties: over several sets they are refused
            // before any set is looked up, with what to do instead.
            for uri in ["/feed/$feed?sets=Item,Tag&$filter=price%20gt%201", "/feed/$feed?sets=Item,Tag&$select=name"] {
                let answer = try await client.execute(uri: uri, method: .get, headers: [.accept: "text/event-stream"])
                #expect(answer.status == .badRequest, "\(uri): \(answer.text)")
                #expect(answer.odataError?.message.contains("apply to one set") == true, "\(uri): \(answer.text)")
            }
        }
    }
}
