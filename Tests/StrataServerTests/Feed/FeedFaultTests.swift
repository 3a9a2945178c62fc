import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Synchronization
import Testing

/// The feed under faults and across processes: a server killed during a write load loses no
/// acknowledged change and its tokens still work after the restart; a commit through one server
/// reaches a subscriber of another; on SQLite another program's write reaches the stream.
@Suite("Feed: faults and other writers")
struct FeedFaultTests {
    @Test("kill -9 during a write load: every acknowledged insert is in the delta after the restart, from a token taken before",
          arguments: Backend.allCases)
    func killedDuringLoad(_ backend: Backend) async throws {
        let binary = try StrataProcess.executable()
        let configuration = try await TestDatabases.shared.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let arguments = StrataProcess.serveArguments(configuration)
        var server = try await StrataProcess.start(binary, arguments: arguments)
        let first = try await server.request(.get, "/cardealer/$tables?names=Person&track=1")
        #expect(first.status == .ok)
        let token = try #require((try? JSONValue.parse(Array(first.text.utf8)))?[member: "token"]?.stringValue)

        // Four writers post until the server dies; only answered posts count.
        let running = server
        let answered = NIOLockedValueBox(0)
        let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
            for writer in 0..<4 {
                group.addTask {
                    var names: [String] = []
                    for index in 0..<10_000 {
                        let name = "K\(writer)-\(index)"
                        guard let answer = try? await running.request(.post, "/cardealer/Person", body: #"{"firstName":"\#(name)","lastName":"Load"}"#),
                              answer.status == .created else { break }
                        names.append(name)
                        answered.withLockedValue { $0 += 1 }
                    }
                    return names
                }
            }
            // Killed mid-load, once the load runs (a busy machine answers slowly).
            let deadline = ContinuousClock.now + .seconds(60)
            while answered.withLockedValue({ $0 }) < 40, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            running.kill()
            var all: [String] = []
            for try await names in group { all += names }
            return all
        }
        #expect(acknowledged.count > 10, "the load ran before the kill")

        server = try await StrataProcess.start(binary, arguments: arguments)
        defer { server.kill() }
        var seen = Set<String>()
        var uri = "/cardealer/$tables?names=Person&since=\(token)"
        while true {
            let answer = try await server.request(.get, uri)
            #expect(answer.status == .ok, "\(answer.text.prefix(300))")
            let json = try JSONValue.parse(Array(answer.text.utf8))
            for row in FeedTablesTests.rows(FeedTablesTests.table(json, "Person")) {
                for case .string(let text) in row where text.hasPrefix("K") { seen.insert(text) }
            }
            guard let next = json[member: "next"]?.stringValue, let range = next.range(of: "/cardealer/") else { break }
            uri = String(next[range.lowerBound...])
        }
        let missing = Set(acknowledged).subtracting(seen)
        #expect(missing.isEmpty, "acknowledged but not in the feed: \(missing.sorted().prefix(10))")
    }

    @Test("A commit through server A reaches a subscriber of server B (PostgreSQL NOTIFY, the log as truth)")
    func acrossServers() async throws {
        try await withTwoServers(.live, services: [FeedFixtures.service], configure: { FeedFixtures.track(&$0) }) { servers in
            let portB = try #require(servers.b.port), portA = try #require(servers.a.port)
            let reader = try await EventStreamReader.open(port: portB, path: "/feed/$feed?sets=Tag")
            defer { reader.close() }
            #expect(reader.status == 200)
            #expect(await reader.next(1).first?.event == "ready")
            let created = try await LoopbackHTTP.json(port: portA, .post, "/feed/Tag",
                                                      basic: "Basic " + Data("\(TestAccounts.admin):\(TestAccounts.password(TestAccounts.admin))".utf8).base64EncodedString(),
                                                      #"{"label":"from-a"}"#)
            #expect(created.status == .created, "\(created.text)")
            let event = await reader.next(1, timeout: .seconds(10)).first
            #expect(event?.event == "changes")
            #expect(event?.data.contains("from-a") == true)
        }
    }

    @Test("On SQLite, another program's write to the file reaches the stream")
    func otherProgramOnSQLite() async throws {
        let directory = Mutex<String?>(nil)
        try await withLiveServer(.sqlite, services: [FeedFixtures.service], configure: { configuration in
            FeedFixtures.track(&configuration)
            directory.withLock { $0 = configuration.dataDirectory }
        }) { port in
            let reader = try await EventStreamReader.open(port: port, path: "/feed/$feed?sets=Tag")
            defer { reader.close() }
            #expect(await reader.next(1).first?.event == "ready")
            let file = try #require(directory.withLock { $0 }) + "/feed.sqlite"
            try await PythonSQLite.execute(file, #"INSERT INTO "Tag" ("label") VALUES ('from-python')"#)
            let event = await reader.next(1, timeout: .seconds(10)).first
            #expect(event?.event == "changes")
            #expect(event?.data.contains("from-python") == true)
        }
    }
}
