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
    @Test("kill -9 of the primary under 4 writers, then promotion: writes resume within 10 s, every acknowledged write is there once, only 503s with Retry-After meanwhile, a delta link from before still works")
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
        // A delta link taken before the failover still works after it: the change log is a table, replicated.
        let tracked = try await LoopbackHTTP.send(port: balancer.port, .get, "/cardealer/Person?$filter=lastName%20eq%20'Failover'",
                                                  headers: [.authorization: cluster.editor, HTTPField.Name("Prefer")!: "odata.track-changes"])
        let deltaLink = try #require((try? JSONValue.parse(Array(tracked.text.utf8)))?["d"]?["__delta"]?.stringValue,
                                     "a delta link before the failover: \(tracked.text.prefix(300))")
        let (outcome, failedAt) = try await WriteLoad.run(cluster, port: balancer.port, lastName: "Failover") { load in
            try await load.waitForAcknowledged(100)
            try ReplicatedPostgres.crash(dataDirectory: primary.data)
            load.failed()
            // The operator notices and promotes the standby a second later.
            try await Task.sleep(for: .seconds(1))
            try await postgres.promote(standby)
            try await load.waitForResumption(within: .seconds(20))
        }
        let names = try await postgres.value(standby, #"SELECT string_agg("firstName", ',') FROM cardealer."Person" WHERE "lastName" = 'Failover'"#)
            .split(separator: ",").map(String.init)
        try WriteLoad.expectNoLoss(outcome, failedAt: failedAt, within: .seconds(10), names: names)
        let link = try #require(URL(string: deltaLink))
        let delta = try await LoopbackHTTP.send(port: balancer.port, .get, link.path + "?" + (link.query ?? ""),
                                                headers: [.authorization: cluster.editor])
        #expect(delta.status == .ok, "the delta link from before the failover: \(delta.status) \(delta.text.prefix(300))")
        let changed = Set(((try? JSONValue.parse(Array(delta.text.utf8)))?["d"]?["results"]?.arrayValue ?? []).compactMap { $0["firstName"]?.stringValue })
        #expect(Set(outcome.acknowledged).isSubset(of: changed), "the delta after the failover holds every acknowledged write")
    }
}
