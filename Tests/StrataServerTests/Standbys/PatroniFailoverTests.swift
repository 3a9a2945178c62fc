import Foundation
import HTTPTypes
import StrataCore
import Testing

/// Failover managed by Patroni (docs/DEPLOYMENT.md, *Failover*): the leader's machine dies under four
/// writers and Patroni promotes its synchronous standby once the leader's key expires; the servers,
/// given both hosts, find the new primary by themselves.
@Suite("Standbys: Patroni", .serialized)
struct PatroniFailoverTests {
    @Test("Patroni promotes the synchronous standby after the leader dies under 4 writers: writes resume within 40 s and every acknowledged write is there once",
          .enabled(if: PatroniCluster.isInstalled, "Patroni and etcd are installed (apt-get install patroni etcd-server, as .ci/run does)"))
    func patroniFailover() async throws {
        let patroni = try await PatroniCluster.start()
        defer { patroni.stopAll() }
        let (leader, standby) = (patroni.nodes[0], patroni.nodes[1])
        let database = "postgres://postgres@127.0.0.1:\(leader.port),127.0.0.1:\(standby.port)/postgres?target_session_attrs=read-write"
        var cluster = StandbyServers()
        defer { cluster.stopAll() }
        let first = try await cluster.start(database: database, replicas: [])
        let second = try await cluster.start(database: database, replicas: [])
        let balancer = try await NginxBalancer.start(upstreams: [first.port, second.port])
        defer { balancer.stop() }
        let (outcome, failedAt) = try await WriteLoad.run(cluster, port: balancer.port, lastName: "Patroni") { load in
            try await load.waitForAcknowledged(100)
            try patroni.crash(leader)
            load.failed()
            // Patroni waits for the leader key's ttl (20 s) before it promotes.
            try await load.waitForResumption(within: .seconds(60))
        }
        #expect(await patroni.answers(standby, "/primary", within: .seconds(5)), "Patroni made the standby the primary")
        let names = try await ReplicatedPostgres.value(port: standby.port,
                                                       #"SELECT string_agg("firstName", ',') FROM cardealer."Person" WHERE "lastName" = 'Patroni'"#)
            .split(separator: ",").map(String.init)
        try WriteLoad.expectNoLoss(outcome, failedAt: failedAt, within: .seconds(40), names: names)
    }
}
