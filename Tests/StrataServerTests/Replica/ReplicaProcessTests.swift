import Foundation
@testable import StrataClient
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `strata sync` as a process, killed with SIGKILL at moments spread over its run — before it
/// starts, while it seals, sends, reads the answer, pulls — and run again: every offline change
/// reaches the server exactly once, and the replica reopens from disk.
/// Serialized, and eight kills: each round starts `strata` processes, which costs the whole suite
/// CPU; the two databases at once starved other tests' timing checks on two cores.
@Suite("Replica: strata sync killed", .serialized)
struct ReplicaProcessTests {
    @Test("Offline inserts sent by a strata sync killed at moments from start to end (until some land while a change is sealed) arrive exactly once", arguments: Backend.allCases)
    func killed(_ backend: Backend) async throws {
        try await withLiveServer(backend) { connection in
            let strata = try StrataProcess.executable()
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sync-killed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let server = connection.baseURL.absoluteString
            let environment = ["STRATA_CREDENTIALS": scratch.appendingPathComponent("credentials").path]
            let login = try await ChildProcess.run(strata, ["login", server, "--username", TestAccounts.tester, "--password-stdin"],
                                             environment: environment, input: TestAccounts.testerPassword + "\n")
            #expect(login.status == 0, "\(login.errors)")
            let replica = scratch.appendingPathComponent("replica").path
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            let common = ["sync", replica, "--server", server, "--service", "cardealer", "--tables", "Person"]
            let first = try await ChildProcess.run(strata, common, environment: environment)
            #expect(first.status == 0 && first.output.contains("downloaded Person"), "\(first.output)\(first.errors)")

            // How long a run that sends one change takes, start to exit; the kills are spread from
            // half of it to past its end, so that they land while the process starts, seals, sends,
            // waits for the answer and pulls.
            let probe = try await ChildProcess.run(strata, common + ["--offline", "--add", #"Person={"firstName":"Probe","lastName":"Probe"}"#],
                                             environment: environment)
            #expect(probe.status == 0)
            let started = ContinuousClock.now
            _ = try await ChildProcess.run(strata, common, environment: environment)
            let run = started.duration(to: .now)
            // Eight kills spread over the run; then, if none of them landed after the answer, later
            // ones; if all did, earlier ones; and if none landed between sealing and the server's
            // answer (the case this test is for), more at moments between, up to 24 in all: the test
            // waits for the outcomes, not for a timing assumed to produce them.
            var delays = (0 ..< 8).map { run * (0.5 + 0.6 * Double($0) / 7) }
            var outcomes: [String] = []
            var round = 0
            while round < delays.count {
                let delay = delays[round]
                let add = try await ChildProcess.run(strata, common + ["--offline", "--add", #"Person={"firstName":"Killed\#(round)","lastName":"Kill"}"#],
                                               environment: environment)
                #expect(add.status == 0, "\(add.errors)")
                try await runKilled(strata, common, environment, after: delay)
                // Where the kill landed: with the change sealed and unanswered, sent and answered, or
                // before it was sealed.
                let look = try await Replica.open(at: URL(fileURLWithPath: replica), adapter: adapter, tables: [ReplicaTable("Person")])
                outcomes.append(await look.state.sealed != nil ? "sealed" : (await look.state.pending.isEmpty ? "done" : "queued"))
                await look.close()
                round += 1
                if round == delays.count, delays.count < 24 {
                    let sorted = delays.sorted()
                    if !outcomes.contains("done") {
                        // Every kill came too early (a loaded machine runs slower than measured): later ones.
                        delays += (1...4).map { sorted[sorted.count - 1] * (1 + 0.5 * Double($0)) }
                    } else if outcomes.allSatisfy({ $0 == "done" }) {
                        // Every kill came too late (the measured run was slower than these): earlier ones.
                        delays += (1...4).map { sorted[0] * (1 - 0.2 * Double($0)) }
                    } else if !outcomes.contains("sealed") {
                        // Between each pair of moments tried so far.
                        delays += zip(sorted, sorted.dropFirst()).map { ($0 + $1) / 2 }.prefix(24 - delays.count)
                    }
                }
            }
            #expect(outcomes.contains("sealed"), "no kill landed between sealing and the answer: \(outcomes)")
            #expect(outcomes.contains("done"), "no kill landed after the change was answered: \(outcomes)")
            print("strata sync killed at \(delays.map { "\($0)" }): \(outcomes)")
            // The last killed run's push may still be being applied on a loaded server, which then
            // answers "being applied now; send it again when that request has been answered": do so.
            var last = try await ChildProcess.run(strata, common, environment: environment)
            for _ in 0..<30 where last.status != 0 && last.errors.contains("is being applied now") {
                try await Task.sleep(for: .seconds(1))
                last = try await ChildProcess.run(strata, common, environment: environment)
            }
            #expect(last.status == 0 && last.output.contains("pending 0 local changes"), "\(last.output)\(last.errors)")

            // The local copy answers SQL from a terminal; a statement that writes is refused with the reason.
            let counted = try await ChildProcess.run(strata, common + ["--offline", "--sql", "SELECT count(*) AS killed FROM Person WHERE lastName = 'Kill'"],
                                               environment: environment)
            #expect(counted.status == 0 && counted.output.contains("killed") && counted.output.contains("\(delays.count)"), "\(counted.output)\(counted.errors)")
            let refused = try await ChildProcess.run(strata, common + ["--offline", "--sql", "DELETE FROM Person"], environment: environment)
            #expect(refused.status != 0 && refused.errors.contains("only reads"), "\(refused.output)\(refused.errors)")

            let stored = try await adapter.table("Person", where: "lastName eq 'Kill'").rows.compactMap { $0["firstName"]?.stringValue }
            #expect(stored.sorted() == delays.indices.map { "Killed\($0)" }.sorted(), "each insert exactly once: \(stored.sorted())")

            // The replica the killed processes left behind opens and agrees with the server.
            let reopened = try await Replica.open(at: URL(fileURLWithPath: replica), adapter: adapter, tables: [ReplicaTable("Person")])
            let local = try await reopened.rows("Person").filter { $0["lastName"] == .string("Kill") }
            #expect(local.count == delays.count && local.allSatisfy { ($0["personID"]?.integerValue ?? -1) > 0 })
            await reopened.close()
        }
    }
}
