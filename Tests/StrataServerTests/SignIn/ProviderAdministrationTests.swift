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

/// Providers as configuration: the client secret is sealed and never answered, a wrong issuer is
/// refused when the provider is added, and `/admin/providers` and `/auth/providers` say what they should.
struct ProviderAdministrationTests {
    @Test("The client secret is sealed in the system database and never in an answer", arguments: Backend.allCases)
    func sealedSecret(_ backend: Backend) async throws {
        let provider = try await ScriptedProvider.make()
        try await provider.run { issuer in
            try await withAuthServer(backend) { client, configuration in
                let root = basic(TestAccounts.admin)
                let body = #"{"name":"acme","issuer":"\#(issuer)","clientId":"acme-client","clientSecret":"s3cret-never-shown","displayName":"Acme","rules":["email suffix @acme.example editor"],"claims":["pass email","rename name displayName"]}"#
                var created = try await client.send(.post, "/admin/providers", headers: root.merging([.contentType: "application/json"]), body: body)
                #expect(created.status == .created, "\(created.text)")
                let listed = try await client.get("/admin/providers", headers: root)
                #expect(!listed.text.contains("s3cret"))
                let entry = try #require(listed.json["providers"]?.arrayValue?.first)
                #expect(entry["hasSecret"] == .bool(true) && entry["clientId"]?.stringValue == "acme-client")
                #expect(entry["claims"]?.arrayValue?.count == 2 && entry["rules"]?.arrayValue?.count == 1)
                // Listed in the form POST takes: a provider read from the list can be saved back unchanged.
                #expect(entry["rules"] == .array([.string("email suffix @acme.example editor")]))
                #expect(entry["claims"] == .array([.string("pass email"), .string("rename name displayName")]))
                let public_ = try await client.get("/auth/providers")
                #expect(public_.json["providers"]?.arrayValue?.first?["displayName"]?.stringValue == "Acme")
                #expect(!public_.text.contains("acme-client"))

                // In the database: sealed, not the secret's text, and it opens to the secret.
                try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                    let stored = try #require(try await admin.store.providers(named: "acme").first?.secret)
                    #expect(!stored.sealed.contains("s3cret") && Data(base64Encoded: stored.sealed) != nil)
                    let keys = try #require(admin.signingKeys)
                    #expect(try keys.open(stored, context: "provider:acme", what: "test") == "s3cret-never-shown")
                    // Bound to its provider: the same box under another name does not open.
                    #expect(throws: ConfigurationError.self) { try keys.open(stored, context: "provider:other", what: "test") }
                }

                // A change without a secret keeps it.
                created = try await client.send(.post, "/admin/providers", headers: root.merging([.contentType: "application/json"]),
                                                body: #"{"name":"acme","issuer":"\#(issuer)","clientId":"acme-client","displayName":"Acme Corp"}"#)
                #expect(created.status == .created)
                #expect(try await client.get("/admin/providers", headers: root).json["providers"]?.arrayValue?.first?["hasSecret"] == .bool(true))

                let refused: [(String, String)] = [
                    (#"{"name":"Bad Name","issuer":"\#(issuer)","clientId":"c"}"#, "lower-case"),
                    (#"{"name":"plainhttp","issuer":"http://idp.example.org","clientId":"c"}"#, "https"),
                    (#"{"name":"nowhere","issuer":"\#(issuer)/nothing-here","clientId":"c"}"#, "cannot be used"),
                    (#"{"name":"noopenid","issuer":"\#(issuer)","clientId":"c","scopes":["email"]}"#, "openid"),
                    (#"{"name":"oauth","kind":"oauth2","issuer":"\#(issuer)","clientId":"c"}"#, "endpoints"),
                    (#"{"name":"badclaim","issuer":"\#(issuer)","clientId":"c","claims":["set sub admin"]}"#, "sub"),
                ]
                for (body, message) in refused {
                    let response = try await client.send(.post, "/admin/providers", headers: root.merging([.contentType: "application/json"]), body: body)
                    #expect(response.status == .badRequest, "\(body): \(response.text)")
                    #expect(response.odataError?.message.contains(message) == true, "\(body): \(response.text)")
                }
                #expect(try await client.send(.post, "/admin/providers", headers: basic(TestAccounts.editor).merging([.contentType: "application/json"]),
                                              body: body).status == .forbidden)
                #expect(try await client.send(.delete, "/admin/providers?name=acme", headers: root).status == .noContent)
                #expect(try await client.get("/auth/providers").json["providers"]?.arrayValue?.isEmpty == true)
            }
        }
    }
}
