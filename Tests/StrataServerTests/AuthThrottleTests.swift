import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Guessing is slowed per source, and nobody can lock another user out: the attacker and the user
/// connect from different loopback addresses over real sockets (issue: five wrong passwords from
/// anywhere locked an account for 15 minutes).
@Suite("Auth: throttling by address")
struct AuthThrottleTests {
    static func limits(_ configuration: inout StrataConfiguration) {
        configuration.auth.passwordHashCost = 4
        configuration.auth.maxFailuresPerAccount = 3
        configuration.auth.maxFailuresPerAddress = 8
        configuration.auth.accountDelay = .milliseconds(100)
        configuration.auth.maxAccountDelay = .milliseconds(400)
        configuration.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.3"])
    }

    /// `POST /auth/token` from `source`, optionally with `X-Forwarded-For`; the status code.
    static func signIn(_ port: Int, from source: String, _ user: String, _ password: String, forwardedFor: String? = nil) async throws -> Int {
        let socket = try RawSocket(port: port, source: source)
        defer { socket.close() }
        let body = #"{"username":"\#(user)","password":"\#(password)"}"#
        let forwarded = forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? ""
        socket.send("POST /auth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\(forwarded)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        let answer = await socket.readResponse(timeout: .seconds(30)) ?? ""
        return Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("An attacker at one address is stopped; the owner at another signs in after a short delay", arguments: Backend.allCases)
    func attackerAndOwner(_ backend: Backend) async throws {
        try await withAuthLiveServer(backend, configure: Self.limits) { port in
            let attacker = "127.0.0.2", owner = "127.0.0.1"
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await Self.signIn(port, from: attacker, "reader", "wrong")) }
            #expect(statuses == [403, 403, 403, 429, 429], "\(statuses)")
            // From this address even the right password is refused: the server cannot tell who is typing.
            #expect(try await Self.signIn(port, from: attacker, "reader", "pw-reader") == 429)

            // The owner, elsewhere, is delayed (the account failed from anywhere) but never refused.
            let start = ContinuousClock.now
            #expect(try await Self.signIn(port, from: owner, "reader", "pw-reader") == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(100), "no delay for an account under attack")
            // Wrong guesses from a third address add to the delay, which stays bounded.
            for _ in 0..<3 { _ = try await Self.signIn(port, from: "127.0.0.4", "reader", "wrong") }
            let later = ContinuousClock.now
            #expect(try await Self.signIn(port, from: owner, "reader", "pw-reader") == 200)
            #expect(ContinuousClock.now - later >= .milliseconds(400) && ContinuousClock.now - later < .seconds(10))

            // Guessing many accounts from one address reaches the address's limit: everyone there waits.
            for name in ["ghost1", "ghost2", "ghost3", "ghost4", "ghost5"] { _ = try await Self.signIn(port, from: attacker, name, "x") }
            #expect(try await Self.signIn(port, from: attacker, "writer", "pw-writer") == 429)
            #expect(try await Self.signIn(port, from: owner, "writer", "pw-writer") == 200)
        }
    }

    @Test("Behind a trusted proxy the forwarded address counts; from anyone else X-Forwarded-For is ignored", arguments: Backend.allCases)
    func trustedProxy(_ backend: Backend) async throws {
        try await withAuthLiveServer(backend, configure: Self.limits) { port in
            let proxy = "127.0.0.3"
            for _ in 0..<3 {
                #expect(try await Self.signIn(port, from: proxy, "writer", "wrong", forwardedFor: "203.0.113.9") == 403)
            }
            #expect(try await Self.signIn(port, from: proxy, "writer", "pw-writer", forwardedFor: "203.0.113.9") == 429)
            // Another client behind the same proxy; the left part of the header is the client's own claim.
            #expect(try await Self.signIn(port, from: proxy, "writer", "pw-writer", forwardedFor: "203.0.113.9, 198.51.100.7") == 200)
            // A client that is not the proxy cannot pose as another address.
            for _ in 0..<3 { _ = try await Self.signIn(port, from: "127.0.0.5", "writer", "wrong", forwardedFor: "198.51.100.8") }
            #expect(try await Self.signIn(port, from: "127.0.0.5", "writer", "pw-writer", forwardedFor: "198.51.100.9") == 429)
        }
    }

    @Test("Client addresses: trusted peers forward, CIDR blocks match, garbage is ignored")
    func clientAddresses() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "::1", "192.168.1.7"])
        #expect(proxies.client(peer: "10.1.2.3", headers: [TrustedProxies.forwardedFor: "1.2.3.4, 10.9.9.9"]) == "1.2.3.4")
        #expect(proxies.client(peer: "10.1.2.3", headers: [TrustedProxies.forwardedFor: "5.6.7.8, 1.2.3.4"]) == "1.2.3.4")
        #expect(proxies.client(peer: "::1", headers: [TrustedProxies.forwardedFor: "2001:db8::1"]) == "2001:db8::1")
        #expect(proxies.client(peer: "192.168.1.8", headers: [TrustedProxies.forwardedFor: "1.2.3.4"]) == "192.168.1.8")
        #expect(proxies.client(peer: "10.1.2.3", headers: [TrustedProxies.forwardedFor: "not-an-address"]) == "10.1.2.3")
        #expect(proxies.client(peer: "10.1.2.3", headers: [:]) == "10.1.2.3")
        #expect(throws: ConfigurationError.self) { try TrustedProxies(parsing: ["10.0.0.0/33"]) }
        #expect(throws: ConfigurationError.self) { try TrustedProxies(parsing: ["proxy.example"]) }
    }
}

/// ``withAuthServer`` on a real socket: the demo data, its access rules and the test accounts.
func withAuthLiveServer<T: Sendable>(
    _ backend: Backend,
    configure: @Sendable (inout StrataConfiguration) -> Void = { _ in },
    _ test: @Sendable (Int) async throws -> T
) async throws -> T {
    try await PostgresSlots.run(backend) {
        var configuration = try await TestDatabases.shared.configuration(backend)
        configure(&configuration)
        let prepared = configuration
        defer { try? FileManager.default.removeItem(atPath: prepared.dataDirectory) }
        try await Administration.with(prepared, logger: TestDatabases.logger) { admin in
            try await TestAccounts.create(admin)
        }
        let app = try await buildApplication(prepared, logger: TestDatabases.logger)
        return try await app.test(.live) { client in
            try await test(try #require(client.port))
        }
    }
}
