import Foundation
import StrataCore
import HTTPTypes
import HummingbirdTesting
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Synchronization
import Testing

/// Two servers on one PostgreSQL database: what changes through one applies on the other at its
/// next request, because the change is pushed (`LISTEN`/`NOTIFY`). B holds its caches for a minute
/// whether or not it listens, so that only the notification can explain a change seen within a
/// second; with the listening connection cut, B falls back to polling, then listens again.
///
/// PostgreSQL only: a SQLite system database is one server's file (the single-server behaviour is
/// what the `Auth` suites test on both databases).
@Suite("Shared state: changes pushed between servers")
struct SharedStateTests {
    /// Caches held a minute whether or not the server listens: only a push explains a change seen sooner.
    static func longCaches(_ configuration: inout StrataConfiguration) {
        configuration.auth.cacheMaxAge = 60
        configuration.auth.pushedCacheMaxAge = 60
    }

    /// How long a pushed change may take to show. A push takes milliseconds; the bound leaves room
    /// for two loaded cores and stays a quarter of the minute a cache would take, so a change seen
    /// within it is still the push's.
    static let push: Duration = .seconds(15)
    static let json: HTTPFields = [.contentType: "application/json"]

    @Test("A role and a grant added, then revoked, through one server apply on the other at its next request")
    func grants() async throws {
        try await withTwoServers(configure: Self.longCaches) { (servers: TwoServers) async throws in
            let admin = basic(TestAccounts.admin) + Self.json
            // B loads its copy of the grants: nobody reads no hockey table.
            #expect(try await servers.b.get("/hockey/Teams", headers: basic(TestAccounts.nobody)).status == .forbidden)
            #expect(try await servers.a.send(.post, "/admin/roles", headers: admin, body: #"{"username":"nobody","role":"scout"}"#).status.code < 300)
            let grant = #"{"role":"scout","service":"hockey","table":"Teams","actions":["read"]}"#
            #expect(try await servers.a.send(.post, "/admin/grants", headers: admin, body: grant).status.code < 300)
            #expect(try await eventually(within: Self.push) {
                try await servers.b.get("/hockey/Teams", headers: basic(TestAccounts.nobody)).status == .ok
            }, "the grant made through A did not apply on B")
            let revoke = try await servers.a.send(.delete, "/admin/grants?role=scout&service=hockey&table=Teams&actions=read",
                                                  headers: basic(TestAccounts.admin))
            #expect(revoke.status.code < 300, "\(revoke.text)")
            #expect(try await eventually(within: Self.push) {
                try await servers.b.get("/hockey/Teams", headers: basic(TestAccounts.nobody)).status == .forbidden
            }, "the grant revoked through A still applied on B")
        }
    }

    @Test("Signing out, a new password and a removed account through one server end the token on the other at once")
    func signIns() async throws {
        try await withTwoServers(configure: Self.longCaches) { (servers: TwoServers) async throws in
            // Signed out through A: B, which verified the token a moment ago, refuses it.
            let (first, _) = try await servers.a.signIn(TestAccounts.reader)
            #expect(try await servers.b.get("/auth/me", headers: bearer(first)).status == .ok)
            #expect(try await servers.a.send(.post, "/auth/logout", headers: bearer(first)).status == .noContent)
            #expect(try await eventually(within: Self.push) {
                try await servers.b.get("/auth/me", headers: bearer(first)).status == .unauthorized
            }, "a token signed out through A still worked on B")

            // A new password set through A ends the account's sign-ins on B.
            let (second, _) = try await servers.a.signIn(TestAccounts.reader)
            #expect(try await servers.b.get("/auth/me", headers: bearer(second)).status == .ok)
            let changed = try await servers.a.send(.post, "/admin/users/password", headers: basic(TestAccounts.admin) + Self.json,
                                                   body: #"{"username":"reader","password":"new-secret"}"#)
            #expect(changed.status.code < 300, "\(changed.text)")
            #expect(try await eventually(within: Self.push) {
                try await servers.b.get("/auth/me", headers: bearer(second)).status == .unauthorized
            }, "a token of a changed password still worked on B")

            // An account removed through A.
            let (writer, _) = try await servers.a.signIn(TestAccounts.editor)
            #expect(try await servers.b.get("/auth/me", headers: bearer(writer)).status == .ok)
            #expect(try await servers.a.send(.delete, "/admin/users?username=writer", headers: basic(TestAccounts.admin)).status.code < 300)
            #expect(try await eventually(within: Self.push) {
                try await servers.b.get("/auth/me", headers: bearer(writer)).status == .unauthorized
            }, "a removed account's token still worked on B")
        }
    }

    @Test("Anonymous access changed through one server applies on the other at its next request")
    func anonymousAccess() async throws {
        try await withTwoServers(configure: Self.longCaches) { (servers: TwoServers) async throws in
            let admin = basic(TestAccounts.admin) + Self.json
            #expect(try await servers.b.get("/cardealer/Person").status == .ok)
            #expect(try await servers.a.send(.put, "/admin/access", headers: admin, body: #"{"service":"cardealer","anonymous":"none"}"#).status == .noContent)
            #expect(try await eventually(within: Self.push) { return try await servers.b.get("/cardealer/Person").status == .unauthorized },
                    "anonymous access removed through A still applied on B")
            #expect(try await servers.a.send(.put, "/admin/access", headers: admin, body: #"{"service":"cardealer","anonymous":"read"}"#).status == .noContent)
            #expect(try await eventually(within: Self.push) { return try await servers.b.get("/cardealer/Person").status == .ok },
                    "anonymous access given through A did not apply on B")
        }
    }

    @Test("A service setting changed through one server's /admin applies on the other, which reloads its services")
    func serviceSettings() async throws {
        try await withTwoServers(configure: Self.longCaches) { (servers: TwoServers) async throws in
            let reader = basic(TestAccounts.admin)
            let before = try await servers.b.get("/cardealer/Person", headers: reader)
            #expect(before.json["d"]["__next"] == nil && (before.json["d"]["results"]?.arrayValue?.count ?? 0) > 3)
            let set = try await servers.a.send(.put, "/admin/services", headers: reader + Self.json, body: #"{"service":"cardealer","pageSize":3}"#)
            #expect(set.status == .ok, "\(set.text)")
            // Nothing on B polls service settings: only the notification reloads them.
            #expect(try await eventually(within: .seconds(5)) {
                let page = try await servers.b.get("/cardealer/Person", headers: reader)
                return page.json["d"]["results"]?.arrayValue?.count == 3 && page.json["d"]["__next"] != nil
            }, "B did not take the page size set through A")
        }
    }

    @Test("With its listening connection cut, a server falls back to polling, then listens again")
    func fallbackAndReconnect() async throws {
        try await withTwoServers(configure: { configuration in
            configuration.auth.cacheMaxAge = 1
            configuration.auth.pushedCacheMaxAge = 600
        }, configureB: { configuration in
            // Long enough that the polling phase below ends before B listens again.
            configuration.changeListenerRetry = .seconds(5)
        }) { (servers: TwoServers) async throws in
            let admin = basic(TestAccounts.admin) + Self.json
            let freshness = servers.freshnessB
            let keyReloads = Counter()
            servers.changesB.onKeysChanged { keyReloads.increment() }
            #expect(freshness.maxAge == .seconds(600))
            #expect(try await servers.b.get("/cardealer/Person").status == .ok)

            #expect(try await servers.terminateListeners() >= 2)
            #expect(try await eventually(within: .seconds(3)) { !freshness.isListening }, "B did not notice its listener was gone")
            #expect(freshness.maxAge == .seconds(1))

            // Not pushed (B is not listening, and A's notification is lost to it): B polls.
            #expect(try await servers.a.send(.put, "/admin/access", headers: admin, body: #"{"service":"cardealer","anonymous":"none"}"#).status == .noContent)
            #expect(try await eventually(within: .seconds(3)) { return try await servers.b.get("/cardealer/Person").status == .unauthorized },
                    "B did not poll while its listener was down")
            #expect(!freshness.isListening, "B listened again before the polling could be seen")

            // B listens again; then a change is pushed: with a minute's fallback, only the push explains it.
            #expect(try await eventually(within: .seconds(15)) { freshness.isListening }, "B did not listen again")
            // Notifications may have been missed while it was down: everything is read again.
            #expect(try await eventually(within: Self.push) { keyReloads.value == 1 }, "B did not reload its keys on reconnecting")
            freshness.fallbackMaxAge = .seconds(60)
            #expect(try await servers.b.get("/cardealer/Person").status == .unauthorized)
            #expect(try await servers.a.send(.put, "/admin/access", headers: admin, body: #"{"service":"cardealer","anonymous":"read"}"#).status == .noContent)
            #expect(try await eventually(within: Self.push) { return try await servers.b.get("/cardealer/Person").status == .ok },
                    "a change was not pushed to B after it listened again")
        }
    }

    @Test("A change of signing keys announced through one server calls the other's registered key handler")
    func keysHook() async throws {
        try await withTwoServers { (servers: TwoServers) async throws in
            let calls = Counter()
            servers.changesB.onKeysChanged { calls.increment() }
            let system = servers.serverA.system
            try await system.database.transaction { connection in try await system.announce(.keys, on: connection) }
            #expect(try await eventually(within: Self.push) { calls.value == 1 }, "B's key handler was not called")
            // An announcement rolled back is never delivered.
            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                try await system.database.transaction { connection in
                    try await system.announce(.keys, on: connection)
                    throw Abandoned()
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(calls.value == 1)
        }
    }

    @Test("A service reload under way plus a burst of announced changes runs at most one more reload")
    func reloadsCoalesce() async throws {
        try await withTwoServers { servers in
            let before = servers.changesB.reloadCount
            for _ in 0..<20 { servers.changesB.apply(SystemChange.services.rawValue) }
            #expect(try await eventually(within: .seconds(10)) { servers.changesB.reloadCount >= before + 1 })
            try await Task.sleep(for: .milliseconds(500))
            let ran = servers.changesB.reloadCount - before
            #expect(ran >= 1 && ran <= 2, "\(ran) reloads for a burst of 20 changes")
        }
    }
}

/// A count shared with handlers that run in other tasks.
final class Counter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}
