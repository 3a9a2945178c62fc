import Foundation
import StrataCore
import HummingbirdTesting
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// Two servers on one PostgreSQL system database count the same failed logins: a guesser who
/// spreads attempts over both is stopped at the count one server stops it at (the single-server
/// rules are `AuthThrottleTests` and `AuthTokenTests`, on both databases).
@Suite("Auth: throttling shared by servers")
struct SharedThrottleTests {
    @Test("A brute force spread over two servers is stopped at the count of one; the owner elsewhere still signs in")
    func spreadBruteForce() async throws {
        try await withTwoServers(.live, configure: AuthThrottleTests.limits) { (servers: TwoServers) async throws in
            let (portA, portB) = (try #require(servers.a.port), try #require(servers.b.port))
            let attacker = "127.0.0.2", owner = "127.0.0.1"
            var statuses: [Int] = []
            for port in [portA, portB, portA, portB, portA] {
                statuses.append(try await AuthThrottleTests.signIn(port, from: attacker, "reader", "wrong"))
            }
            // As one server answers (AuthThrottleTests.attackerAndOwner).
            #expect(statuses == [403, 403, 403, 429, 429], "\(statuses)")
            #expect(try await AuthThrottleTests.signIn(portB, from: attacker, "reader", "pw-reader") == 429)
            #expect(try await AuthThrottleTests.signIn(portA, from: attacker, "reader", "pw-reader") == 429)

            // The account failed from anywhere: its owner is delayed on either server, never refused.
            let start = ContinuousClock.now
            #expect(try await AuthThrottleTests.signIn(portB, from: owner, "reader", "pw-reader") == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(100), "no delay for an account under attack on the other server")

            // Guessing many accounts from one address, over both servers, reaches the address's limit (8).
            for (index, name) in ["ghost1", "ghost2", "ghost3", "ghost4", "ghost5"].enumerated() {
                _ = try await AuthThrottleTests.signIn(index % 2 == 0 ? portB : portA, from: attacker, name, "x")
            }
            #expect(try await AuthThrottleTests.signIn(portA, from: attacker, "writer", "pw-writer") == 429)
            #expect(try await AuthThrottleTests.signIn(portB, from: attacker, "writer", "pw-writer") == 429)
            #expect(try await AuthThrottleTests.signIn(portB, from: owner, "writer", "pw-writer") == 200)
        }
    }

    @Test("Concurrent guesses at both servers lose no failure: every refusal is counted, and then both servers block")
    func concurrentGuesses() async throws {
        try await withTwoServers(.live, configure: AuthThrottleTests.limits) { (servers: TwoServers) async throws in
            let (portA, portB) = (try #require(servers.a.port), try #require(servers.b.port))
            let attacker = "127.0.0.6"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask { try await AuthThrottleTests.signIn(index % 2 == 0 ? portA : portB, from: attacker, "nobody", "wrong") }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let refused = statuses.filter { $0 == 403 }.count
            #expect(statuses.allSatisfy { $0 == 403 || $0 == 429 }, "\(statuses)")
            // At least the limit got through to the password check; past it, only attempts that were
            // checked while others were still in flight.
            #expect(refused >= 3, "\(statuses)")
            // Every failure was recorded (rows are inserted, never counted up in place): none lost.
            let rows = try await servers.serverA.system.database.read { connection in
                try await connection.query("SELECT count(*) FROM \(servers.serverA.system.table("auth_failures")) WHERE \"kind\" = 'pair'",
                                           types: [.int64])
            }
            #expect(rows.rows.first?.first?.integerValue == Int64(refused), "\(statuses)")
            #expect(try await AuthThrottleTests.signIn(portA, from: attacker, "nobody", "pw-nobody") == 429)
            #expect(try await AuthThrottleTests.signIn(portB, from: attacker, "nobody", "pw-nobody") == 429)
        }
    }
}
