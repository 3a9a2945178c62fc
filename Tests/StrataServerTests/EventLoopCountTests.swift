import Foundation
import NIOCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

@Suite("Event loops of strata serve")
struct EventLoopCountTests {
    @Test("The server runs as many event loops as --event-loops or STRATA_EVENT_LOOPS ask, else one per core")
    func loopThreads() async throws {
        // A data directory with the account the process helper signs in with.
        let data = try await TestDatabases.shared.configuration(.sqlite, demo: false).dataDirectory
        defer { try? FileManager.default.removeItem(atPath: data) }
        // Unset unless a case sets them: the test process's own environment must not decide.
        let unset: [String: String?] = ["STRATA_EVENT_LOOPS": nil, "NIO_SINGLETON_GROUP_LOOP_COUNT": nil]
        let cases: [(arguments: [String], environment: [String: String?], loops: Int)] = [
            (["--event-loops", "3"], ["STRATA_EVENT_LOOPS": "4"], 3),
            ([], ["STRATA_EVENT_LOOPS": "1"], 1),
            ([], [:], System.coreCount),
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
