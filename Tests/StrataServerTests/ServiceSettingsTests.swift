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

/// Per-service settings: page size and the If-Match requirement, set before the server starts (as
/// `strata service set` does) and changed while it runs through `/admin/services`.
@Suite("Service settings", .serialized)
struct ServiceSettingsTests {
    /// Rows in the first page of `uri`, and whether it has a `__next` link.
    static func firstPage(_ client: any TestClientProtocol, _ uri: String, _ headers: HTTPFields = [:]) async throws -> (rows: Int, next: Bool) {
        let page = try await client.get(uri, headers: headers)
        #expect(page.status == .ok, "\(uri): \(page.text.prefix(200))")
        return (page.json["d"]["results"]?.arrayValue?.count ?? -1, page.json["d"]["__next"] != nil)
    }

    @Test("A service's own page size applies to it alone; the others keep the server's", arguments: Backend.allCases)
    func pageSizePerService(_ backend: Backend) async throws {
        try await withAuthServer(backend, configure: { $0.pageSize = 1000 }, setup: { admin in
            try await admin.configureService("cardealer", pageSize: .value(25))
        }) { client in
            let people = try await Self.firstPage(client, "/cardealer/Person")
            #expect(people.rows == 25 && people.next)
            let events = try await Self.firstPage(client, "/speakeasy/Events")
            #expect(events.next == false)
            // Following __next still visits every person once.
            var seen = 0
            var next: String? = "/cardealer/Person?$select=personID"
            while let url = next, seen < 10_000 {
                let page = try await client.get(url)
                seen += page.json["d"]["results"]?.arrayValue?.count ?? 0
                next = page.json["d"]["__next"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) }
            }
            #expect(String(seen) == (try await client.get("/cardealer/Person/$count")).text)
        }
    }

    @Test("/admin/services changes settings at once; bad values are 400 and change nothing", arguments: Backend.allCases)
    func adminChangesApplyAtOnce(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let admin = basic(TestAccounts.admin) + [.contentType: "application/json"]
            #expect(try await Self.firstPage(client, "/cardealer/Car").next == false)

            let set = try await client.send(.put, "/admin/services", headers: admin, body: #"{"service":"cardealer","pageSize":3,"requireIfMatch":true}"#)
            #expect(set.status == .ok, "\(set.text)")
            #expect(set.json["cardealer"]["pageSize"]?.intValue == 3)
            let cars = try await Self.firstPage(client, "/cardealer/Car")
            #expect(cars.rows == 3 && cars.next)
            let unconditional = try await client.send(HTTPRequest.Method("MERGE")!, "/cardealer/Car(1)", headers: admin, body: #"{"model":"X"}"#)
            #expect(unconditional.status == .preconditionRequired)

            for body in [#"{"service":"cardealer","pageSize":0}"#, #"{"service":"cardealer","pageSize":"many"}"#,
                         #"{"service":"cardealer","pageSize":1.5}"#, #"{"service":"cardealer","requireIfMatch":"yes"}"#,
                         #"{"pageSize":10}"#] {
                let refused = try await client.send(.put, "/admin/services", headers: admin, body: body)
                #expect(refused.status == .badRequest, "\(body): \(refused.status) \(refused.text)")
            }
            let unknown = try await client.send(.put, "/admin/services", headers: admin, body: #"{"service":"nosuch","pageSize":10}"#)
            #expect(unknown.status == .notFound)
            let listed = try await client.get("/admin/services", headers: admin)
            #expect(listed.json["cardealer"]["pageSize"]?.intValue == 3)
            #expect(listed.json["cardealer"]["requireIfMatch"]?.boolValue == true)

            // null returns to the server's page size; the If-Match requirement is kept.
            let reset = try await client.send(.put, "/admin/services", headers: admin, body: #"{"service":"cardealer","pageSize":null}"#)
            #expect(reset.json["cardealer"]["pageSize"]?.isNull == true)
            #expect(reset.json["cardealer"]["requireIfMatch"]?.boolValue == true)
            #expect(try await Self.firstPage(client, "/cardealer/Car").next == false)

            let editor = basic(TestAccounts.editor) + [.contentType: "application/json"]
            let notAdmin = try await client.send(.put, "/admin/services", headers: editor, body: #"{"service":"cardealer","pageSize":5}"#)
            #expect(notAdmin.status == .forbidden)
        }
    }
}
