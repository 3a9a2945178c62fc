import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The server's PostgreSQL pool: fixed in size, and a lease that waits too long gives up with a 503.
@Suite("PostgreSQL pool")
struct PostgresPoolTests {
    @Test("A waiting lease is cancelled once its time in the pool is up; one that got its connection, or has not asked yet, never is")
    func leaseWatchDeadlines() async throws {
        let watch = LeaseWatch(resolution: .milliseconds(20))
        let cancelled = NIOLockedValueBox<[String]>([])
        let start = ContinuousClock.now

        var tickets: [String: LeaseTicket] = [:]
        for name in ["late", "served", "failed", "unscheduled"] {
            let ticket = watch.ticket(timeout: .milliseconds(150))
            ticket.onExpiry { cancelled.withLockedValue { $0.append(name) } }
            // A lease task that has not run yet (a busy cooperative pool) has not asked the pool.
            if name != "unscheduled" { ticket.start() }
            tickets[name] = ticket
        }
        let late = try #require(tickets["late"]), served = try #require(tickets["served"]), unscheduled = try #require(tickets["unscheduled"])
        #expect(served.acquire())
        tickets["failed"]?.end()

        while cancelled.withLockedValue({ $0.isEmpty }), ContinuousClock.now < start + .seconds(60) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(150), "cancelled before its deadline")
        // Generous: at the start of a full run the cooperative threads can be busy for seconds.
        #expect(waited < .seconds(60), "the watcher did not give up on the lease")
        try await Task.sleep(for: .milliseconds(200))
        #expect(cancelled.withLockedValue { $0 } == ["late"])
        #expect(late.isExpired && !late.isAcquired)
        #expect(late.acquire() == false, "a connection that arrives after the deadline must not be used")
        #expect(served.isAcquired && !served.isExpired)
        #expect(!unscheduled.isExpired)
        unscheduled.end()

        // A lease that registers what to cancel only after its deadline passed is cancelled at once.
        let tardy = watch.ticket(timeout: .zero)
        tardy.start()
        let registered = ContinuousClock.now
        while !tardy.isExpired, ContinuousClock.now < registered + .seconds(60) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let called = NIOLockedValueBox(false)
        tardy.onExpiry { called.withLockedValue { $0 = true } }
        #expect(called.withLockedValue { $0 })
    }

    @Test("The server's pool opens its connections at start and keeps that many; one more request waits, then gets 503")
    func fixedPool() async throws {
        try await withEmptyPostgresDatabase { _, location, name in
            let client = PostgresClient(configuration: location.clientConfiguration(keepingOpen: 2), backgroundLogger: TestDatabases.logger)
            let database = PostgresDatabase(sessions: PostgresSessions(pool: PostgresPool(fixed: client, logger: TestDatabases.logger), control: nil,
                                                                       logger: TestDatabases.logger),
                                            logger: TestDatabases.logger, leaseTimeout: .seconds(1),
                                            leaseWatch: LeaseWatch(resolution: .milliseconds(50)))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }

                // Opened without any request asking for them.
                var open = 0
                let start = ContinuousClock.now
                while open != 2, ContinuousClock.now < start + .seconds(30) {
                    try await Task.sleep(for: .milliseconds(100))
                    open = try await Self.connections(to: name, location: location)
                }
                #expect(open == 2)

                // Both connections busy: a third lease waits its second, then the database counts as
                // unreachable, long before a connection would come free.
                let sleepers = (0..<2).map { _ in
                    Task { try await database.read { try await $0.query("SELECT pg_sleep(15)") } }
                }
                // Waits until both sleep in the database, rather than for a time assumed long enough.
                let leased = ContinuousClock.now
                while try await Self.connections(to: name, location: location, running: "SELECT pg_sleep(15)") < 2,
                      ContinuousClock.now < leased + .seconds(10) {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let asked = ContinuousClock.now
                await #expect {
                    _ = try await database.read { try await $0.query("SELECT 1") }
                } throws: { error in
                    guard case StorageError.unavailable(let message) = error else { return false }
                    return message.contains("no PostgreSQL connection within")
                }
                let waited = ContinuousClock.now - asked
                #expect(waited >= .seconds(1) && waited < .seconds(12), "gave up after \(waited)")
                for sleeper in sleepers { _ = try await sleeper.value }

                // The sleepers' connections went back to the pool; it still holds two, and they serve.
                let rows = try await database.read { try await $0.query("SELECT 1", types: [.int32]) }
                #expect(rows.rows == [[.int32(1)]])
                #expect(try await Self.connections(to: name, location: location) == 2)
            }
        }
    }

    /// Client connections to `database`, counted from a connection of another database.
    private static func connections(to database: String, location: PostgresLocation, running query: String? = nil) async throws -> Int {
        let endpoint = PostgresTestCluster.Endpoint(location)
        return try await TestDatabases.withAdminClient(endpoint, database: "postgres") { client in
            let statement: PostgresQuery = if let query {
                "SELECT count(*)::int FROM pg_stat_activity WHERE datname = \(database) AND state = 'active' AND query = \(query)"
            } else {
                "SELECT count(*)::int FROM pg_stat_activity WHERE datname = \(database)"
            }
            let rows = try await client.query(statement)
            var count = 0
            for try await row in rows { count = try row.decode(Int.self) }
            return count
        }
    }
}
