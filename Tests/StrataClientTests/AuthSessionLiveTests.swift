import Foundation
import StrataClient
import Testing

/// ``AuthSession`` against Strata's own token service, over a real socket.
@Suite("AuthSession against the server")
struct AuthSessionLiveTests {
    @Test("Sign in, write, refresh (the old refresh token dies), sign out (the token stops working)")
    func fullCycle() async throws {
        try await withFreshServer { server in
            let session = AuthSession(serverURL: server.rootURL)
            let first = try await session.signIn(username: LiveServer.editorName, password: LiveServer.editorPassword)
            #expect(first.expiresAt.map { abs($0.timeIntervalSinceNow - 7200) < 60 } == true)
            let service = server.service("cardealer", configuration: ConnectionConfiguration(authenticator: session))
            let created = try await service.set("Person").create(WriteTests.NewPerson(firstName: "Token", lastName: "Holder", ssn: "987-65-4321"))
            #expect(created["firstName"] == .string("Token"))

            let second = try await session.refresh()
            #expect(second.refreshToken != first.refreshToken)
            #expect(second.accessToken != first.accessToken)
            // Single use: replaying the first refresh token is refused (and revokes its family).
            let replay = AuthSession(serverURL: server.rootURL, store: MemoryTokenStore(first))
            do {
                _ = try await replay.refresh()
                Issue.record("a used refresh token was accepted")
            } catch let error as StrataError {
                #expect([.unauthorized, .badRequest, .forbidden].contains(error.kind))
            }

            // Anonymous writes are refused; the demo's cardealer is readable without signing in.
            let anonymous = server.service("cardealer")
            #expect(try await anonymous.set("Person").key(1).get()["firstName"] != nil)
            do {
                _ = try await anonymous.set("Person").create(WriteTests.NewPerson(firstName: "No", lastName: "Body", ssn: "000-00-0000"))
                Issue.record("an anonymous insert was accepted")
            } catch let error as StrataError {
                #expect(error.kind == .unauthorized)
            }

            try await session.signOut()
            #expect(await session.isSignedIn == false)
            // The server ended the sign-in too: the tokens it held no longer work anywhere, neither
            // the access token nor (when the client tries it on the 401) the refresh token.
            let leftover = AuthSession(serverURL: server.rootURL, store: MemoryTokenStore(second))
            let stale = server.service("cardealer", configuration: ConnectionConfiguration(authenticator: leftover))
            do {
                _ = try await stale.set("Person").create(WriteTests.NewPerson(firstName: "Signed", lastName: "Out", ssn: "111-11-1111"))
                Issue.record("a signed-out access token still wrote")
            } catch let error as StrataError {
                #expect(error.kind == .unauthorized, "\(error)")
            }
        }
    }
}
