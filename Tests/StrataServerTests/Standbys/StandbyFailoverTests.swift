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
    }
}
