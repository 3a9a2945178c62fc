import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import StrataCore
import Testing

/// Failover (docs/DEPLOYMENT.md, *Standbys*): a primary with a synchronous standby, two servers
/// behind nginx given both hosts (`postgres://p,s/db?target_session_attrs=read-write`), four
/// writers; the primary's processes are killed with SIGKILL and the standby promoted, as an
/// operator (or Patroni) would.
@Suite("Standbys: failover", .serialized)
struct StandbyFailoverTests {
    @Test("kill -9 of the primary under 4 writers, then promotion: writes resume within 10 s, every acknowledged write is there once, only 503s with Retry-After meanwhile")
    func failover() async throws {
        let postgres = try await ReplicatedPostgres.start(applyDelays: [nil], synchronous: true)
        defer { postgres.stopAll() }
        let (primary, standby) = (postgres.primary, postgres.standbys[0])
        let synchronous = try await StandbyServers.eventually(within: .seconds(20)) {
            try await postgres.value(primary, "SELECT string_agg(sync_state, ',') FROM pg_stat_replication") == "sync"
        }
        guard synchronous else { Issue.record("the standby is synchronous before the writes start"); return }
        let database = "postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/postgres?target_session_attrs=read-write"
        var cluster = StandbyServers()
        defer { cluster.stopAll() }
        let first = try await cluster.start(database: database, replicas: [])
        let second = try await cluster.start(database: database, replicas: [])
        let balancer = try await NginxBalancer.start(upstreams: [first.port, second.port])
        defer { balancer.stop() }
        let port = balancer.port
        let servers = cluster
        struct Outcome: Sendable {
            var acknowledged: [String] = []
            var statuses: [Int: Int] = [:]
            var unavailableWithoutRetryAfter = 0
            var firstAcknowledgedAfterKill: ContinuousClock.Instant?
        }
        let outcome = NIOLockedValueBox(Outcome())
        let killedAt = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
        let stop = NIOLockedValueBox(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    var index = 0
                    while !stop.withLockedValue({ $0 }) {
                        let name = "f\(writer)-\(index)"
                        index += 1
                        let sent = ContinuousClock.now
                        let result = try await servers.postPerson(port: port, firstName: name, lastName: "Failover")
                        outcome.withLockedValue { outcome in
                            outcome.statuses[result.status, default: 0] += 1
                            if result.status == 201 {
                                outcome.acknowledged.append(name)
                                if let killed = killedAt.withLockedValue({ $0 }), sent > killed, outcome.firstAcknowledgedAfterKill == nil {
                                    outcome.firstAcknowledgedAfterKill = .now
                                }
                            }
                            if result.status == 503 {
                                let body = (try? JSONValue.parse(Array(result.response.text.utf8)))?["error"]
                                if result.response.headers[.retryAfter] == nil || body == nil { outcome.unavailableWithoutRetryAfter += 1 }
                            }
                        }
                        if result.status != 201 { try await Task.sleep(for: .milliseconds(50)) }
                    }
                }
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(60)
                while outcome.withLockedValue({ $0.acknowledged.count }) < 100, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                try Self.killAll(primary, in: postgres)
                killedAt.withLockedValue { $0 = .now }
                // The operator notices and promotes the standby a second later.
                try await Task.sleep(for: .seconds(1))
                try await postgres.promote(standby)
                let resumeDeadline = ContinuousClock.now + .seconds(20)
                while outcome.withLockedValue({ $0.firstAcknowledgedAfterKill }) == nil, ContinuousClock.now < resumeDeadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                try await Task.sleep(for: .seconds(1))
                stop.withLockedValue { $0 = true }
            }
            try await group.waitForAll()
        }

        let result = outcome.withLockedValue { $0 }
        let killed = try #require(killedAt.withLockedValue { $0 })
        let resumed = try #require(result.firstAcknowledgedAfterKill, "writes resumed after the failover: \(result.statuses)")
        #expect(resumed - killed < .seconds(10), "writes resumed \(resumed - killed) after the kill")
        #expect(Set(result.statuses.keys).isSubset(of: [201, 503]), "only 201 and 503 (never 500, never a wrong answer): \(result.statuses)")
        #expect(result.unavailableWithoutRetryAfter == 0, "every 503 has Retry-After and an OData error body")
        let names = try await postgres.value(standby, #"SELECT string_agg("firstName", ',') FROM cardealer."Person" WHERE "lastName" = 'Failover'"#)
            .split(separator: ",").map(String.init)
        let missing = Set(result.acknowledged).subtracting(names)
        #expect(missing.isEmpty, "acknowledged writes lost: \(missing.sorted())")
        #expect(names.count == Set(names).count, "a write was applied twice")
    }

    /// SIGKILL to the node's postmaster and every process it started, as a crash of the machine's
    /// PostgreSQL would end them: the postmaster is stopped first (SIGSTOP), so that it forks nothing
    /// while its children are listed (`pgrep -P`, by its pid) and killed.
    static func killAll(_ node: ReplicatedPostgres.Node, in postgres: ReplicatedPostgres) throws {
        let text = try String(contentsOfFile: node.data + "/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(text.split(separator: "\n").first.flatMap { pid_t($0) })
        _ = kill(postmaster, SIGSTOP)
        let children = try ChildProcess.run("pgrep", ["-P", String(postmaster)]).output
            .split(separator: "\n").compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
        for child in children { _ = kill(child, SIGKILL) }
        _ = kill(postmaster, SIGKILL)
    }
}
