import Foundation
import StrataClient
import Testing

/// ``AuthSession`` against a stand-in token service that rotates refresh tokens and counts refreshes.
@Suite("AuthSession")
struct AuthSessionTests {
    /// A data service on the fake server whose requests `session` signs.
    func service(_ url: URL, _ session: AuthSession) -> DataService {
        DataService(url: url.appendingPathComponent("svc/"), configuration: ConnectionConfiguration(authenticator: session))
    }

    @Test("Signing in stores tokens, and requests carry the access token")
    func signIn() async throws {
        try await withFakeAuthServer { url, _ in
            let store = MemoryTokenStore()
            let session = AuthSession(serverURL: url, store: store)
            #expect(await session.isSignedIn == false)
            let tokens = try await session.signIn(username: "editor", password: "right password")
            #expect(tokens.accessToken == "access-1")
            #expect(tokens.refreshToken == "refresh-1")
            #expect(tokens.expiresAt.map { abs($0.timeIntervalSinceNow - 7200) < 60 } == true)
            #expect(await store.loadTokens() == tokens)
            let data = try await service(url, session).resource(ResourcePath([PathSegment("data")])).get()
            #expect(data["token"] == .string("access-1"))
        }
    }

    @Test("A wrong password is a forbidden error with the server's message, and leaves no tokens")
    func wrongPassword() async throws {
        try await withFakeAuthServer { url, _ in
            let session = AuthSession(serverURL: url)
            do {
                try await session.signIn(username: "editor", password: "wrong")
                Issue.record("a wrong password signed in")
            } catch let error as StrataError {
                #expect(error.kind == .forbidden)
                #expect(error.message == "The user name or password is wrong.")
            }
            #expect(await session.isSignedIn == false)
            // Signed out, requests go without credentials and the server says 401.
            do {
                _ = try await service(url, session).resource(ResourcePath([PathSegment("data")])).get()
                Issue.record("an anonymous request was let in")
            } catch let error as StrataError {
                #expect(error.kind == .unauthorized)
            }
        }
    }

    @Test("Thirty concurrent requests as the token nears expiry cause exactly one refresh")
    func oneRefreshBeforeExpiry() async throws {
        try await withFakeAuthServer { url, state in
            await state.configure(signInLifetime: 30) // inside the 60 s refresh margin
            let session = AuthSession(serverURL: url)
            try await session.signIn(username: "editor", password: "right password")
            let data = service(url, session).resource(ResourcePath([PathSegment("data")]))
            let tokens = try await withThrowingTaskGroup(of: ODataValue?.self) { group in
                for _ in 0..<30 { group.addTask { try await data.get()["token"] } }
                return try await group.reduce(into: [ODataValue?]()) { $0.append($1) }
            }
            #expect(await state.refreshCount == 1)
            #expect(Set(tokens) == [.string("access-2")])
            #expect(try await session.currentTokens?.refreshToken == "refresh-2")
        }
    }

    @Test("Concurrent 401s cause exactly one refresh and every request is retried once")
    func oneRefreshAfterRejection() async throws {
        try await withFakeAuthServer { url, state in
            let session = AuthSession(serverURL: url)
            try await session.signIn(username: "editor", password: "right password")
            let data = service(url, session).resource(ResourcePath([PathSegment("data")]))
            #expect(try await data.get()["token"] == .string("access-1"))
            await state.revokeAccessTokens()
            let tokens = try await withThrowingTaskGroup(of: ODataValue?.self) { group in
                for _ in 0..<20 { group.addTask { try await data.get()["token"] } }
                return try await group.reduce(into: [ODataValue?]()) { $0.append($1) }
            }
            #expect(await state.refreshCount == 1)
            #expect(Set(tokens) == [.string("access-2")])
            // 1 before, 20 refused, 20 retried.
            #expect(await state.dataRequests == 41)
        }
    }

    @Test("When the refresh token is dead too, the 401 reaches the caller and the session signs out")
    func deadRefreshToken() async throws {
        try await withFakeAuthServer { url, state in
            let store = MemoryTokenStore()
            let session = AuthSession(serverURL: url, store: store)
            try await session.signIn(username: "editor", password: "right password")
            await state.revokeEverything()
            do {
                _ = try await service(url, session).resource(ResourcePath([PathSegment("data")])).get()
                Issue.record("a revoked session was let in")
            } catch let error as StrataError {
                #expect(error.kind == .unauthorized)
            }
            #expect(await state.refreshCount == 1)
            #expect(await session.isSignedIn == false)
            #expect(await store.loadTokens() == nil)
        }
    }

    @Test("An explicit refresh rotates the refresh token; a refresh token is never sent twice")
    func explicitRefresh() async throws {
        try await withFakeAuthServer { url, state in
            let session = AuthSession(serverURL: url)
            try await session.signIn(username: "editor", password: "right password")
            async let first = session.refresh()
            async let second = session.refresh()
            let (a, b) = try await (first, second)
            #expect(a == b)
            #expect(a.refreshToken == "refresh-2")
            #expect(await state.refreshCount == 1)
            let third = try await session.refresh()
            #expect(third.refreshToken == "refresh-3")
            #expect(await state.refreshCount == 2)
        }
    }

    @Test("A federated token is exchanged for Strata tokens")
    func tokenExchange() async throws {
        try await withFakeAuthServer { url, _ in
            let session = AuthSession(serverURL: url)
            let tokens = try await session.exchange(externalToken: "external.jwt")
            #expect(tokens.accessToken == "access-1")
            await #expect(throws: StrataError.self) { try await AuthSession(serverURL: url).exchange(externalToken: "forged.jwt") }
        }
    }

    @Test("Signing out revokes on the server and removes the stored tokens")
    func signOut() async throws {
        try await withFakeAuthServer { url, state in
            let store = MemoryTokenStore()
            let session = AuthSession(serverURL: url, store: store)
            try await session.signIn(username: "editor", password: "right password")
            try await session.signOut()
            #expect(await state.logoutCount == 1)
            #expect(await store.loadTokens() == nil)
            #expect(await session.isSignedIn == false)
            // Signing out again is a no-op.
            try await session.signOut()
            #expect(await state.logoutCount == 1)
        }
    }

    @Test("Tokens already in the store are used without signing in")
    func storedTokens() async throws {
        try await withFakeAuthServer { url, _ in
            let first = AuthSession(serverURL: url, store: MemoryTokenStore())
            let tokens = try await first.signIn(username: "editor", password: "right password")
            let second = AuthSession(serverURL: url, store: MemoryTokenStore(tokens))
            let data = try await service(url, second).resource(ResourcePath([PathSegment("data")])).get()
            #expect(data["token"] == .string(tokens.accessToken))
        }
    }
}

@Suite("FileTokenStore")
struct FileTokenStoreTests {
    @Test("Tokens round-trip per account in a file only its owner can read")
    func roundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tokens-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("config/strata/credentials")
        let local = FileTokenStore(fileURL: file, account: "http://127.0.0.1:8080")
        let remote = FileTokenStore(fileURL: file, account: "https://example.org")
        #expect(try await local.loadTokens() == nil)
        let tokens = Tokens(accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSince1970: 1_700_000_000))
        try await local.saveTokens(tokens)
        try await remote.saveTokens(Tokens(accessToken: "b"))
        #expect(try await local.loadTokens() == tokens)
        #expect(try await remote.loadTokens()?.accessToken == "b")
        #expect(try local.accounts() == ["http://127.0.0.1:8080", "https://example.org"])

        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)

        try await local.saveTokens(nil)
        #expect(try await local.loadTokens() == nil)
        #expect(try await remote.loadTokens() != nil)
        try await remote.saveTokens(nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
