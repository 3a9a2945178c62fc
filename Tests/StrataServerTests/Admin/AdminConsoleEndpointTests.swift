import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrataCore
@testable import StrataServer
import Testing

/// The `/admin` routes the console's administration screens added (issue 39): a service's model
/// file over HTTP, signing an account out everywhere, and role previews.
@Suite("Admin: model file, sign out everywhere, role preview")
struct AdminConsoleEndpointTests {
    static let admin = basic(TestAccounts.admin)
    static let json: HTTPFields = [.contentType: "application/json"]
    static let text: HTTPFields = [.contentType: "text/plain; charset=utf-8"]

    @Test("Model file: 404 without one, a refused file names its line and changes nothing, applied at once, removed", arguments: Backend.allCases)
    func modelFile(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            #expect(try await client.get("/admin/model?service=hockey", headers: Self.admin).status == .notFound)
            let missing = try await client.get("/admin/model?service=nosuch", headers: Self.admin)
            #expect(missing.status == .notFound && missing.text.contains("hockey"), "\(missing.text)")
            #expect(try await client.get("/admin/model?service=hockey", headers: basic(TestAccounts.editor)).status == .forbidden)
            #expect(try await client.get("/admin/model?service=hockey").status == .unauthorized)

            let bad = "tables:\n  Teams:\n    colour: red\n"
            let refused = try await client.execute(uri: "/admin/model?service=hockey", method: .put, headers: Self.admin + Self.text,
                                                   body: ByteBuffer(string: bad))
            #expect(refused.status == .badRequest)
            #expect(refused.json["error"]?["message"]?["value"]?.stringValue?.hasPrefix("line 3:") == true, "\(refused.text)")
            #expect(try await client.get("/admin/model?service=hockey", headers: Self.admin).status == .notFound)
            let yaml = try await client.execute(uri: "/admin/model?service=hockey", method: .put, headers: Self.admin + Self.text,
                                                body: ByteBuffer(string: "tables: [\n"))
            #expect(yaml.status == .badRequest && yaml.text.contains("line "), "\(yaml.text)")
            let json = try await client.execute(uri: "/admin/model?service=hockey", method: .put, headers: Self.admin + Self.json,
                                                body: ByteBuffer(string: "{}"))
            #expect(json.status == .unsupportedMediaType)

            // A good file: an entity set renamed, served at once.
            let good = "tables:\n  Teams:\n    name: Clubs\n"
            let applied = try await client.execute(uri: "/admin/model?service=hockey", method: .put, headers: Self.admin + Self.text,
                                                   body: ByteBuffer(string: good))
            #expect(applied.status == .noContent, "\(applied.text)")
            #expect(try await client.get("/admin/model?service=hockey", headers: Self.admin).text == good)
            #expect(try await client.get("/hockey/Clubs/$count", headers: Self.admin).status == .ok)
            #expect(try await client.execute(uri: "/admin/model?service=hockey", method: .delete, headers: Self.admin, body: nil).status == .noContent)
            #expect(try await client.get("/hockey/Teams/$count", headers: Self.admin).status == .ok)
            #expect(try await client.execute(uri: "/admin/model?service=hockey", method: .delete, headers: Self.admin, body: nil).status == .notFound)
        }
    }

    @Test("Sign out everywhere: access and refresh tokens stop, the password stays", arguments: Backend.allCases)
    func signOutEverywhere(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let tokens = try await client.signIn(TestAccounts.reader)
            #expect(try await client.get("/auth/me", headers: bearer(tokens.access)).status == .ok)
            let body = ByteBuffer(string: #"{"username":"\#(TestAccounts.reader)"}"#)
            #expect(try await client.execute(uri: "/admin/users/sign-out", method: .post, headers: basic(TestAccounts.editor) + Self.json, body: body).status == .forbidden)
            #expect(try await client.get("/auth/me", headers: bearer(tokens.access)).status == .ok)
            #expect(try await client.execute(uri: "/admin/users/sign-out", method: .post, headers: Self.admin + Self.json, body: body).status == .noContent)
            #expect(try await client.get("/auth/me", headers: bearer(tokens.access)).status == .unauthorized)
            let refreshed = try await client.execute(uri: "/auth/token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                                     body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(tokens.refresh)"))
            #expect(refreshed.status.code >= 400 && refreshed.status.code < 500, "\(refreshed.text)")
            // The password still signs in.
            #expect(try await client.signIn(TestAccounts.reader).access.isEmpty == false)
            let nobody = try await client.execute(uri: "/admin/users/sign-out", method: .post, headers: Self.admin + Self.json,
                                                  body: ByteBuffer(string: #"{"username":"no-such-account"}"#))
            #expect(nobody.status == .notFound)
        }
    }

    @Test("Role preview: a token holding exactly the roles asked for, reading only, never admin", arguments: Backend.allCases)
    func rolePreview(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            // clerk reads Teams of the Eastern conference only.
            let grant = ByteBuffer(string: #"{"role":"clerk","service":"hockey","table":"Teams","actions":["read","update"],"filter":"conference eq 'Eastern'"}"#)
            #expect(try await client.execute(uri: "/admin/grants", method: .post, headers: Self.admin + Self.json, body: grant).status == .noContent)
            let issued = try await client.execute(uri: "/admin/preview-token", method: .post, headers: Self.admin + Self.json,
                                                  body: ByteBuffer(string: #"{"roles":["clerk@hockey"]}"#))
            #expect(issued.status == .created, "\(issued.text)")
            let token = try #require(issued.json["access_token"]?.stringValue)
            let all = Int(try await client.get("/hockey/Teams/$count", headers: Self.admin).text) ?? 0
            let eastern = Int(try await client.get("/hockey/Teams/$count?$filter=conference%20eq%20'Eastern'", headers: Self.admin).text) ?? -1
            let seen = try await client.get("/hockey/Teams/$count", headers: bearer(token))
            #expect(seen.status == .ok && Int(seen.text) == eastern && eastern < all, "\(seen.text) \(eastern) \(all)")
            #expect(try await client.get("/hockey/Players/$count", headers: bearer(token)).status.code >= 400)
            let me = try await client.get("/auth/me", headers: bearer(token))
            #expect(me.json["subject"]?.stringValue == "preview:\(TestAccounts.admin)", "\(me.text)")
            // Reads only, although clerk may update; no /admin; no preview from a preview.
            let write = try await client.execute(uri: "/hockey/Teams(1)", method: .patch, headers: bearer(token) + Self.json,
                                                 body: ByteBuffer(string: #"{"city":"X"}"#))
            #expect(write.status == .forbidden, "\(write.text)")
            #expect(try await client.get("/admin/users", headers: bearer(token)).status == .forbidden)
            for body in [#"{"roles":["admin"]}"#, #"{"roles":[]}"#, #"{"roles":"clerk"}"#, #"{"roles":["bad name!"]}"#, #"{"roles":["reader@nosuch"]}"#] {
                let refused = try await client.execute(uri: "/admin/preview-token", method: .post, headers: Self.admin + Self.json, body: ByteBuffer(string: body))
                #expect(refused.status == .badRequest || refused.status == .notFound, "\(body): \(refused.text)")
            }
            #expect(try await client.execute(uri: "/admin/preview-token", method: .post, headers: basic(TestAccounts.editor) + Self.json,
                                             body: ByteBuffer(string: #"{"roles":["reader"]}"#)).status == .forbidden)
            // The administrator loses admin: the preview stops.
            #expect(try await client.execute(uri: "/admin/roles?username=\(TestAccounts.admin)&role=admin", method: .delete, headers: Self.admin, body: nil).status == .noContent)
            #expect(try await client.get("/hockey/Teams/$count", headers: bearer(token)).status == .unauthorized)
        }
    }
}
