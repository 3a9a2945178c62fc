import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Callers of verified access tokens held in memory: what ends them at once (writes through the
/// server, expiry), what ends them within the maximum age (another process's writes), and the
/// cache's own rules (a verification overtaken by a write is not kept; the size is bounded).
@Suite("Auth: remembered sign-ins")
struct AuthSignInCacheTests {
    @Test("A token's caller is remembered until a write through the server; another process's removal applies within the maximum age",
          arguments: Backend.allCases)
    func rememberedUntilChanged(_ backend: Backend) async throws {
        // A maximum age far beyond the test: a change another process makes is not seen until the
        // server itself writes, which proves the caller was answered from memory.
        try await withAuthServer(backend, configure: { $0.auth.cacheMaxAge = 3600 }) { client, configuration in
            let (token, _) = try await client.signIn("reader")
            #expect(try await client.get("/auth/me", headers: bearer(token)).status == .ok)
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.removeUser("reader")
            }
            if backend == .postgres {
                // On PostgreSQL the command's write is announced and the server listens: pushed, it
                // applies at the next request whatever the maximum age (SharedStateTests).
                let pushed = try await AuthAccessTests.poll(client, "/auth/me", headers: bearer(token)) { $0.status == .unauthorized }
                #expect(pushed.status == .unauthorized)
                return
            }
            #expect(try await client.get("/auth/me", headers: bearer(token)).status == .ok)

            // Any write through the server forgets every remembered caller.
            let json = basic(TestAccounts.admin) + [.contentType: "application/json"]
            #expect(try await client.send(.put, "/admin/access", headers: json, body: #"{"service":"hockey","anonymous":"none"}"#).status == .noContent)
            // Removing an account ends its sign-ins.
            let refused = try await client.get("/auth/me", headers: bearer(token))
            #expect(refused.status == .unauthorized)
            #expect(refused.odataError?.message.contains("has ended") == true)
        }

        // With the default maximum age (1 s), the same removal by another process applies on its own.
        try await withAuthServer(backend) { client, configuration in
            let (token, _) = try await client.signIn("writer")
            #expect(try await client.get("/auth/me", headers: bearer(token)).status == .ok)
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.removeUser("writer")
            }
            let ended = try await AuthAccessTests.poll(client, "/auth/me", headers: bearer(token)) { $0.status == .unauthorized }
            #expect(ended.status == .unauthorized)
        }
    }

    @Test("Signing out, a new password and a removed role end a remembered token on the next request", arguments: Backend.allCases)
    func serverWritesApplyAtOnce(_ backend: Backend) async throws {
        try await withAuthServer(backend, configure: { $0.auth.cacheMaxAge = 3600 }) { client in
            let (first, _) = try await client.signIn("reader")
            let (second, _) = try await client.signIn("reader")
            #expect(try await client.get("/auth/me", headers: bearer(first)).status == .ok)
            #expect(try await client.get("/auth/me", headers: bearer(second)).status == .ok)
            #expect(try await client.send(.post, "/auth/logout", headers: bearer(first)).status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(first)).status == .unauthorized)
            // The other sign-in of the same account goes on.
            #expect(try await client.get("/auth/me", headers: bearer(second)).status == .ok)

            let changed = try await client.send(.post, "/admin/users/password", headers: basic(TestAccounts.admin) + [.contentType: "application/json"],
                                                body: #"{"username":"reader","password":"another-secret"}"#)
            #expect(changed.status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(second)).status == .unauthorized)
        }
    }

    @Test("A verification that a write overtook is not kept, expired entries are not answered, and the size is bounded")
    func cacheRules() {
        let cache = SignInCache(maxAge: .seconds(3600), capacity: 3)
        let reader = Principal(subject: "reader", roles: ["reader"], serviceRoles: [:], claims: ["sub": "reader"], method: .token)

        let overtaken = cache.ticket(for: "token-a")
        cache.invalidate()
        cache.remember(reader, expiresAt: 2_000, for: overtaken)
        #expect(cache.principal(for: "token-a", now: 1_000) == nil)

        cache.remember(reader, expiresAt: 2_000, for: cache.ticket(for: "token-a"))
        #expect(cache.principal(for: "token-a", now: 1_999)?.subject == "reader")
        #expect(cache.principal(for: "token-b", now: 1_000) == nil)
        #expect(cache.principal(for: "token-a", now: 2_000) == nil)
        #expect(cache.count == 0)

        for name in ["t1", "t2", "t3", "t4"] {
            cache.remember(reader, expiresAt: 2_000, for: cache.ticket(for: name))
        }
        #expect(cache.count <= 3)
        #expect(cache.principal(for: "t4", now: 1_000) != nil)

        let young = SignInCache(maxAge: .zero)
        young.remember(reader, expiresAt: 2_000, for: young.ticket(for: "token-a"))
        #expect(young.principal(for: "token-a", now: 1_000) == nil)
    }

    @Test("Authorization schemes match without regard to case; the credentials are trimmed")
    func credentialsParsing() {
        #expect(Authenticator.credentials("Bearer abc.def", scheme: "Bearer") == "abc.def")
        #expect(Authenticator.credentials("bEARER  abc \t", scheme: "Bearer") == "abc")
        #expect(Authenticator.credentials("Basic dXNlcjpwdw==", scheme: "Basic") == "dXNlcjpwdw==")
        #expect(Authenticator.credentials("Bearer", scheme: "Bearer") == nil)
        #expect(Authenticator.credentials("Bearer ", scheme: "Bearer") == nil)
        #expect(Authenticator.credentials("Bearer \t ", scheme: "Bearer") == nil)
        #expect(Authenticator.credentials("Bearerabc", scheme: "Bearer") == nil)
        #expect(Authenticator.credentials("Basic abc", scheme: "Bearer") == nil)
        #expect(Authenticator.credentials("Béarer abc", scheme: "Bearer") == nil)
        #expect(Authenticator.credentials("Bearer ñandú", scheme: "Bearer") == "ñandú")
        #expect(Authenticator.credentials("", scheme: "Basic") == nil)
    }
}
