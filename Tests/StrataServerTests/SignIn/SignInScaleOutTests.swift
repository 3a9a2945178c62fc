import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Behind a load balancer each step of a sign-in may reach another server: flows and codes live
/// in the shared system database, and every server opens the sealed client secret.
@Suite(.serialized)
struct SignInScaleOutTests {
    @Test("Started on one server, called back on the other, redeemed on the first")
    func acrossServers() async throws {
        let provider = try await ScriptedProvider.make()
        try await provider.run { issuer in
            try await withTwoServers { servers in
                let redirect = "com.example.hockey:/signed-in"
                try await Administration.with(servers.configuration, logger: TestDatabases.logger) { admin in
                    try await admin.putProvider(IdentityProvider(name: "scripted", issuer: issuer, clientID: ScriptedProvider.clientID,
                                                                 claimRules: [.pass("email")]), secret: ProviderSecret("scripted-secret"))
                    _ = try await admin.configureSignIn("hockey", redirectURIs: [redirect], allowsSignUp: true, signUpRole: .value("reader"))
                }
                let browser = ScriptedBrowser(username: "", password: "")
                defer { Task { await browser.shutdown() } }
                let verifier = PKCE.verifier()
                let start = try await servers.a.get("/auth/authorize?" + PercentEncoding.encodeForm([
                    ("provider", "scripted"), ("redirect_uri", redirect), ("code_challenge", PKCE.challenge(for: verifier)), ("state", "s")]))
                let toProvider = try #require(start.headers[.location], "\(start.text)")
                let back = try #require(try await browser.open(toProvider).location)
                let parsed = try #require(URLComponents(string: back))
                let callback = try await servers.b.get(parsed.percentEncodedPath + "?" + (parsed.percentEncodedQuery ?? ""))
                let answer = ScriptedBrowser.query(try #require(callback.headers[.location], "\(callback.status) \(callback.text)"))
                let code = try #require(answer["code"], "\(answer)")
                let tokens = try await servers.a.tokenRequest(form: [("grant_type", "authorization_code"), ("code", code),
                                                                     ("code_verifier", verifier), ("redirect_uri", redirect)])
                #expect(tokens.status == .ok, "\(tokens.text)")
                let me = try await servers.b.get("/auth/me", headers: bearer(try #require(tokens.json["access_token"]?.stringValue)))
                #expect(me.json["claims"]?["email"]?.stringValue == "sam@example.com")
                #expect(me.json["provider"]?.stringValue == "scripted")
                // The code is spent everywhere.
                let again = try await servers.b.tokenRequest(form: [("grant_type", "authorization_code"), ("code", code),
                                                                    ("code_verifier", verifier), ("redirect_uri", redirect)])
                #expect(again.status == .forbidden)
            }
        }
    }
}
