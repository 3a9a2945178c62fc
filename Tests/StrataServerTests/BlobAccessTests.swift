import Foundation
import HTTPTypes
import NIOCore
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

/// Who may read and write blobs: public-read and private containers, built-in roles, container
/// grants, tokens as well as Basic credentials.
@Suite("Blobs: access")
struct BlobAccessTests {
    static let photographer = "photo"

    @Test("Private containers: 401 without credentials, 403 without rights; readers read, editors write, admins manage; grants per container",
          arguments: Backend.allCases)
    func matrix(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser(Self.photographer, password: TestAccounts.password(Self.photographer),
                                    roles: [RoleAssignment(role: "photographer")])
        }) { client, configuration in
            let root = basic(TestAccounts.admin)
            #expect(try await client.execute(uri: "/blobs/vault", method: .put, headers: root, body: nil).status == .created)
            #expect(try await client.execute(uri: "/blobs/gallery?access=public-read", method: .put, headers: root, body: nil).status == .created)
            #expect(try await client.putBlob("/blobs/vault/secret.txt", Array("secret".utf8), headers: root).status == .created)
            #expect(try await client.putBlob("/blobs/gallery/open.txt", Array("open".utf8), headers: root).status == .created)

            func status(_ method: HTTPRequest.Method, _ uri: String, _ headers: HTTPFields = [:]) async throws -> HTTPResponse.Status {
                let body = method == .put ? ByteBuffer(string: "new") : nil
                return try await client.execute(uri: uri, method: method, headers: headers, body: body).status
            }

            // Anonymous: public-read containers only, and only to read.
            let anonymous = try await client.get("/blobs/vault/secret.txt")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(try await status(.get, "/blobs/vault") == .unauthorized)
            #expect(try await status(.get, "/blobs/gallery/open.txt") == .ok)
            #expect(try await status(.head, "/blobs/gallery/open.txt") == .ok)
            #expect(try await status(.get, "/blobs/gallery") == .ok)
            #expect(try await status(.put, "/blobs/gallery/open.txt") == .unauthorized)
            #expect(try await status(.delete, "/blobs/gallery/open.txt") == .unauthorized)
            #expect(try await status(.put, "/blobs/mine") == .unauthorized)

            // Signed in without a role, or with a role for one service only: nothing private.
            for user in [TestAccounts.nobody, TestAccounts.hockeyReader] {
                #expect(try await status(.get, "/blobs/vault/secret.txt", basic(user)) == .forbidden, "\(user)")
                #expect(try await status(.put, "/blobs/gallery/x", basic(user)) == .forbidden, "\(user)")
                #expect(try await status(.get, "/blobs/gallery/open.txt", basic(user)) == .ok, "\(user)")
            }
            // reader: reads everything, writes nothing.
            let reader = basic(TestAccounts.reader)
            #expect(try await status(.get, "/blobs/vault/secret.txt", reader) == .ok)
            #expect(try await status(.get, "/blobs/vault", reader) == .ok)
            #expect(try await status(.put, "/blobs/vault/secret.txt", reader) == .forbidden)
            #expect(try await status(.delete, "/blobs/vault/secret.txt", reader) == .forbidden)
            // A token works as Basic does.
            let token = try await client.signIn(TestAccounts.reader).access
            #expect(try await status(.get, "/blobs/vault/secret.txt", bearer(token)) == .ok)
            // Refused writes changed nothing.
            #expect(try await client.get("/blobs/vault/secret.txt", headers: reader).text == "secret")
            #expect(try await client.get("/blobs/gallery/open.txt").text == "open")

            // editor: reads and writes blobs, but containers are administration.
            let editor = basic(TestAccounts.editor)
            #expect(try await status(.put, "/blobs/vault/by-editor.txt", editor) == .created)
            #expect(try await status(.delete, "/blobs/vault/by-editor.txt", editor) == .noContent)
            #expect(try await status(.put, "/blobs/editors", editor) == .forbidden)
            #expect(try await status(.delete, "/blobs/gallery?force=true", editor) == .forbidden)
            #expect(try await status(.put, "/blobs/vault?access=public-read", editor) == .forbidden)

            // A custom role has exactly what is granted on each container.
            let photo = basic(Self.photographer, TestAccounts.password(Self.photographer))
            #expect(try await status(.get, "/blobs/vault/secret.txt", photo) == .forbidden)
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.grantContainer(role: "photographer", container: "vault", actions: [.read, .write])
            }
            #expect(try await status(.get, "/blobs/vault/secret.txt", photo) == .ok)
            #expect(try await status(.put, "/blobs/vault/by-photographer.jpg", photo) == .created)
            #expect(try await status(.delete, "/blobs/vault/by-photographer.jpg", photo) == .forbidden)
            let visible = try await client.get("/blobs", headers: photo).json["containers"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(visible == ["gallery", "vault"])
            let anonymousVisible = try await client.get("/blobs").json["containers"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(anonymousVisible == ["gallery"])
            let revoked = try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.revokeContainer(role: "photographer", container: "vault", actions: nil)
            }
            #expect(revoked == 2)
            #expect(try await status(.get, "/blobs/vault/secret.txt", photo) == .forbidden)

            // Opening a container up makes it readable by anyone; closing it makes it private again.
            #expect(try await status(.put, "/blobs/vault?access=public-read", root) == .noContent)
            #expect(try await status(.get, "/blobs/vault/secret.txt") == .ok)
            #expect(try await status(.put, "/blobs/vault?access=private", root) == .noContent)
            #expect(try await status(.get, "/blobs/vault/secret.txt") == .unauthorized)
        }
    }

    @Test("Container grants over /admin: listed, added, removed; a grant on an unknown container is 404", arguments: Backend.allCases)
    func adminRoutes(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let root = basic(TestAccounts.admin)
            #expect(try await client.execute(uri: "/blobs/vault", method: .put, headers: root, body: nil).status == .created)
            var headers = root
            headers[.contentType] = "application/json"
            let added = try await client.send(.post, "/admin/container-grants", headers: headers,
                                              body: #"{"role":"viewer","container":"vault","actions":["read"]}"#)
            #expect(added.status == .noContent)
            let everywhere = try await client.send(.post, "/admin/container-grants", headers: headers, body: #"{"role":"uploader","actions":["write"]}"#)
            #expect(everywhere.status == .noContent)
            let unknown = try await client.send(.post, "/admin/container-grants", headers: headers,
                                                body: #"{"role":"viewer","container":"nowhere","actions":["read"]}"#)
            #expect(unknown.status == .notFound)
            let badAction = try await client.send(.post, "/admin/container-grants", headers: headers,
                                                  body: #"{"role":"viewer","container":"vault","actions":["fly"]}"#)
            #expect(badAction.status == .badRequest)
            let list = try await client.get("/admin/container-grants", headers: root).json.arrayValue ?? []
            let rows = list.map { "\($0["role"]?.stringValue ?? "-") \($0["container"]?.stringValue ?? "*") \($0["action"]?.stringValue ?? "-")" }
            #expect(rows == ["uploader * write", "viewer vault read"])
            let removed = try await client.send(.delete, "/admin/container-grants?role=viewer&container=vault", headers: root)
            #expect(removed.json["removed"] == .number("1"))
            #expect(try await client.get("/admin/container-grants", headers: basic(TestAccounts.editor)).status == .forbidden)
        }
    }
}
