import Foundation
import NIOCore
@testable import StrataServer
import Testing

@Suite("Event loops of strata serve")
struct EventLoopCountTests {
    @Test("Automatic: one loop per two cores on SQLite (at least one), one per core on PostgreSQL")
    func automatic() throws {
        let postgres = DatabaseLocation.postgres(try PostgresLocation(url: "postgres://strata@db.example/strata"))
        let sqliteFile = DatabaseLocation.sqliteFile(path: "/data/shop.sqlite")
        #expect(EventLoopCount.automatic(for: nil, cores: 1) == 1)
        #expect(EventLoopCount.automatic(for: nil, cores: 2) == 1)
        #expect(EventLoopCount.automatic(for: nil, cores: 3) == 1)
        #expect(EventLoopCount.automatic(for: nil, cores: 8) == 4)
        #expect(EventLoopCount.automatic(for: sqliteFile, cores: 16) == 8)
        #expect(EventLoopCount.automatic(for: postgres, cores: 1) == 1)
        #expect(EventLoopCount.automatic(for: postgres, cores: 2) == 2)
        #expect(EventLoopCount.automatic(for: postgres, cores: 8) == 8)
    }

    @Test("The server runs as many event loops as --event-loops, STRATA_EVENT_LOOPS or NIO's own variable ask, else the automatic count")
    func loopThreads() async throws {
        // A data directory with the account the process helper signs in with.
        let data = try await TestDatabases.shared.configuration(.sqlite, demo: false).dataDirectory
        defer { try? FileManager.default.removeItem(atPath: data) }
        // Unset unless a case sets them: the test process's own environment must not decide.
        let unset: [String: String?] = ["STRATA_EVENT_LOOPS": nil, EventLoopCount.nioEnvironmentVariable: nil]
        let cases: [(arguments: [String], environment: [String: String?], loops: Int)] = [
            (["--event-loops", "3"], [:], 3),
            (["--event-loops", "2"], ["STRATA_EVENT_LOOPS": "4"], 2),
            ([], ["STRATA_EVENT_LOOPS": "4"], 4),
            ([], [EventLoopCount.nioEnvironmentVariable: "3"], 3),
            ([], [:], EventLoopCount.automatic(for: nil)),
        ]
        for (arguments, environment, loops) in cases {
            let server = try await StrataProcess.start(try StrataProcess.executable(),
                                                       arguments: ["serve", "--data", data, "--log-level", "error"] + arguments,
                                                       environment: unset.merging(environment) { _, new in new })
            defer { server.kill() }
            #expect(Self.eventLoopThreads(of: server.pid) == loops, "\(arguments) \(environment)")
        }
    }

    @Test("A count outside 1…256 or not a number stops the server before it starts, naming the option")
    func refusals() async throws {
        let data = try await TestDatabases.shared.configuration(.sqlite, demo: false).dataDirectory
        defer { try? FileManager.default.removeItem(atPath: data) }
        let cases: [(arguments: [String], environment: [String: String?], message: String)] = [
            (["--event-loops", "0"], [:], "--event-loops must be from 1 to 256"),
            (["--event-loops", "257"], [:], "--event-loops must be from 1 to 256"),
            ([], ["STRATA_EVENT_LOOPS": "many"], "STRATA_EVENT_LOOPS must be a number, not many"),
        ]
        for (arguments, environment, message) in cases {
            do {
                let server = try await StrataProcess.start(try StrataProcess.executable(),
                                                           arguments: ["serve", "--data", data] + arguments, environment: environment)
                server.kill()
                Issue.record("\(arguments) \(environment): the server started")
            } catch let failure as StrataProcess.Failure {
                #expect(failure.description.contains(message), "\(failure.description)")
            }
        }
    }

    /// Threads of NIO's singleton event loop group (`NIO-SGLTN-<group>-#<loop>`; the singleton
    /// thread pool's threads are `SGLTN-TP-#<n>`).
    static func eventLoopThreads(of pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("NIO-SGLTN-")
        }.count
    }
}
