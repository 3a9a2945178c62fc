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

/// `POST /auth/sign-up` and the hosted page: accounts people make themselves where a service
/// allows it, with its role (never admin), password rules, throttling, and answers that tell no
/// more about other accounts than that a name is taken.
struct SignUpTests {
    static let redirect = "com.example.hockey:/signed-in"

    static func allowSignUp(_ admin: Administration) async throws {
        _ = try await admin.configureSignIn("hockey", redirectURIs: [redirect], allowsSignUp: true, signUpRole: .value("reader"))
    }

    static func signUp(_ client: any TestClientProtocol, _ username: String, _ password: String, service: String = "hockey") async throws -> TestResponse {
        let body = JSONValue.object(JSONObject([(key: "service", value: .string(service)), (key: "username", value: .string(username)),
                                                (key: "password", value: .string(password))])).jsonString
        return try await client.send(.post, "/auth/sign-up", headers: [.contentType: "application/json"], body: body)
    }

    @Test("Sign-up creates an account with the service's role and signs it in", arguments: Backend.allCases)
    func signUp(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: Self.allowSignUp) { client in
            let created = try await Self.signUp(client, "newfan", "a long enough passphrase")
            #expect(created.status == .created, "\(created.text)")
            let access = try #require(created.json["access_token"]?.stringValue)
            let me = try await client.get("/auth/me", headers: bearer(access))
            #expect(me.json["subject"]?.stringValue == "newfan")
            #expect(me.json["roles"]?.arrayValue?.compactMap(\.stringValue) == ["reader@hockey"])
            #expect(try await client.get("/hockey/Teams?$top=1", headers: bearer(access)).status == .ok)
            // A reader, and only of hockey: no writes.
            #expect(try await client.send(.delete, "/hockey/Equipment(1)", headers: bearer(access)).status == .forbidden)
            // The password works at /auth/token like any account's.
            let signedIn = try await client.tokenRequest(json: #"{"username":"newfan","password":"a long enough passphrase"}"#)
            #expect(signedIn.status == .ok)
        }
    }

    @Test("Refusals: rules say what to change; a taken name says only that; no sign-up, no account")
    func refusals() async throws {
        try await withAuthServer(.sqlite, setup: Self.allowSignUp) { client in
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("short", "tooshort", .badRequest, "at least 10 characters"),
                ("common", "1234567890", .badRequest, "most common"),
                ("common2", "Password123", .badRequest, "most common"),
                ("common3", "Friend Of Emily", .badRequest, "most common"),
                ("samename1", "SameName1x", .badRequest, "may not be the account name"),
                ("bad:name", "a long enough passphrase", .badRequest, "may not contain ':'"),
                ("toolong", String(repeating: "é", count: 40), .badRequest, "at most 72 bytes"),
            ]
            for (name, password, status, message) in cases {
                let response = try await Self.signUp(client, name == "samename1" ? "SameName1x" : name, password)
                #expect(response.status == status, "\(name): \(response.text)")
                #expect(response.odataError?.message.contains(message) == true, "\(name): \(response.text)")
            }
            // Every entry of the bundled list, the ones with spaces among them, and nothing more.
            #expect(CommonPasswords.list.count == 1777)
            let taken = try await Self.signUp(client, TestAccounts.reader, "a long enough passphrase")
            #expect(taken.status == .conflict)
            #expect(taken.odataError?.message == "This account name cannot be used; choose another.")
            let elsewhere = try await Self.signUp(client, "someone", "a long enough passphrase", service: "cardealer")
            #expect(elsewhere.status == .forbidden)
            #expect(try await client.tokenRequest(json: #"{"username":"someone","password":"a long enough passphrase"}"#).status == .forbidden)
        }
    }

    @Test("Sign-up attempts are throttled per address like failed logins")
    func throttled() async throws {
        try await withAuthServer(.sqlite, setup: Self.allowSignUp) { client in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<7 {
                statuses.append(try await Self.signUp(client, "fan\(index)", "a long enough passphrase").status)
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == .created }, "\(statuses)")
            #expect(statuses.suffix(2).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
        }
    }

    @Test("New accounts are never administrators")
    func neverAdmin() async throws {
        try await withAuthServer(.sqlite) { _, configuration in
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                await #expect(throws: ODataError.self) {
                    try await admin.configureSignIn("hockey", allowsSignUp: true, signUpRole: .value("admin"))
                }
                for bad in ["https://*.example.org/cb", "http://example.org/cb", "javascript:alert(1)", "https://example.org/cb#frag", "relative/path"] {
                    await #expect(throws: ODataError.self, "\(bad)") { try await admin.configureSignIn("hockey", redirectURIs: [bad]) }
                }
            }
        }
    }

    @Test("A sign-up that asks for roles is refused whole, and nobody signs up as more than the service's sign-up role")
    func signUpAsksForAdmin() async throws {
        try await withAuthServer(.sqlite, setup: Self.allowSignUp) { client in
            let body = #"{"service":"hockey","username":"climber","password":"a long enough passphrase","roles":["admin","editor@hockey"]}"#
            let asked = try await client.send(.post, "/auth/sign-up", headers: [.contentType: "application/json"], body: body)
            #expect(asked.status == .badRequest, "\(asked.text)")
            #expect(try await client.tokenRequest(json: #"{"username":"climber","password":"a long enough passphrase"}"#).status != .ok,
                    "the refused sign-up made an account")
            let created = try await Self.signUp(client, "climber", "a long enough passphrase")
            let access = try #require(created.json["access_token"]?.stringValue, "\(created.text)")
            let me = try await client.get("/auth/me", headers: bearer(access))
            #expect(me.json["roles"]?.arrayValue?.compactMap(\.stringValue) == ["reader@hockey"], "\(me.text)")
            #expect(try await client.get("/admin/users", headers: bearer(access)).status == .forbidden)
        }
    }

    @Test("The hosted page lists the providers, escapes what it shows, and its sign-up form hands the app a code")
    func hostedPage() async throws {
        let provider = try await ScriptedProvider.make()
        try await provider.run { issuer in
            try await withAuthServer(.sqlite, setup: { admin in
                try await Self.allowSignUp(admin)
                try await admin.putProvider(IdentityProvider(name: "scripted", issuer: issuer, clientID: ScriptedProvider.clientID,
                                                             displayName: "Acme <Staff> & \"Friends\""), secret: nil)
            }) { client in
                let verifier = PKCE.verifier()
                let query = PercentEncoding.encodeForm([("redirect_uri", Self.redirect), ("state", "<s>"), ("code_challenge", PKCE.challenge(for: verifier))])
                let page = try await client.get("/auth/sign-in?" + query)
                #expect(page.status == .ok)
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
                #expect(page.text.contains("Sign in with Acme &lt;Staff&gt; &amp; &quot;Friends&quot;"))
                #expect(!page.text.contains("<s>") && page.text.contains("&lt;s&gt;") || page.text.contains("%3Cs%3E"))
                #expect(page.text.contains("href=\"/auth/authorize?provider=scripted&amp;redirect_uri="))
                #expect(page.text.contains("<form method=\"post\" action=\"/auth/sign-up\">"))
                #expect(page.text.contains("<label for=\"password\">"))

                let unregistered = try await client.get("/auth/sign-in?redirect_uri=https%3A%2F%2Fevil.example&state=s&code_challenge=\(PKCE.challenge(for: verifier))",
                                                        headers: [.accept: "text/html"])
                #expect(unregistered.status == .badRequest && unregistered.text.contains("role=\"alert\""))

                let form = PercentEncoding.encodeForm([("redirect_uri", Self.redirect), ("state", "<s>"), ("code_challenge", PKCE.challenge(for: verifier)),
                                                       ("code_challenge_method", "S256"), ("service", "hockey"), ("username", "formfan"),
                                                       ("password", "a long enough passphrase")])
                let posted = try await client.send(.post, "/auth/sign-up", headers: [.contentType: "application/x-www-form-urlencoded"], body: form)
                #expect(posted.status == .seeOther)
                let back = ScriptedBrowser.query(try #require(posted.headers[.location]))
                #expect(back["state"] == "<s>")
                let tokens = try await client.tokenRequest(form: [("grant_type", "authorization_code"), ("code", try #require(back["code"])),
                                                                  ("code_verifier", verifier), ("redirect_uri", Self.redirect)])
                #expect(tokens.status == .ok, "\(tokens.text)")
                let me = try await client.get("/auth/me", headers: bearer(try #require(tokens.json["access_token"]?.stringValue)))
                #expect(me.json["subject"]?.stringValue == "formfan")

                // A weak password in the form: the page says why, and no code goes to the app.
                let weak = try await client.send(.post, "/auth/sign-up", headers: [.contentType: "application/x-www-form-urlencoded", .accept: "text/html"],
                                                 body: form.replacingOccurrences(of: "formfan", with: "formfan2").replacingOccurrences(of: "a%20long%20enough%20passphrase", with: "short"))
                #expect(weak.status == .badRequest && weak.headers[.location] == nil && weak.text.contains("at least 10 characters"))
            }
        }
    }
}
