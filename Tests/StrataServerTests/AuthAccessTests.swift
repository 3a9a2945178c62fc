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

/// Who may read what: the demo defaults for every role and verb, table grants, row filters on
/// every table a read touches, and the `/admin` API's own guard.
@Suite("Auth: access rules", .serialized)
struct AuthAccessTests {
    /// The callers of the matrix: nobody signed in, and each kind of account.
    static let callers: [(name: String, headers: HTTPFields)] = [
        ("anonymous", [:]), ("nobody", basic(TestAccounts.nobody)), ("reader", basic(TestAccounts.reader)),
        ("hockeyfan", basic(TestAccounts.hockeyReader)), ("editor", basic(TestAccounts.editor)), ("admin", basic(TestAccounts.admin)),
    ]

    /// The read verbs of the matrix, per demo service.
    static let reads: [String: [(verb: String, uri: String)]] = [
        "cardealer": [("GET collection", "/cardealer/Person?$top=2"), ("GET entity", "/cardealer/Person(1)"),
                      ("$count", "/cardealer/Car/$count"), ("$expand", "/cardealer/Person(1)?$expand=PersonCar/Car"),
                      ("$metadata", "/cardealer/$metadata"), ("service document", "/cardealer/")],
        "speakeasy": [("GET collection", "/speakeasy/Speakers?$top=2"), ("$count", "/speakeasy/Events/$count"),
                      ("$filter", "/speakeasy/Events?$filter=PartitionKey%20eq%20'Events'&$top=1"),
                      ("$metadata", "/speakeasy/$metadata"), ("service document", "/speakeasy/")],
        "hockey": [("GET collection", "/hockey/Teams?$top=2"), ("GET entity", "/hockey/Equipment(1)"),
                   ("$count", "/hockey/Players/$count"), ("$expand", "/hockey/Teams(1)?$expand=Players"),
                   ("$metadata", "/hockey/$metadata"), ("service document", "/hockey/")],
    ]

    /// Issue 6's demo defaults: cardealer and speakeasy readable by anyone; hockey by signed-in readers.
    static func expectedRead(service: String, caller: String) -> HTTPResponse.Status {
        guard service == "hockey" else { return .ok }
        switch caller {
        case "anonymous": return .unauthorized
        case "nobody": return .forbidden
        default: return .ok
        }
    }

    @Test("Read matrix: every caller × read verb × demo service", arguments: Backend.allCases)
    func readMatrix(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            for (service, verbs) in Self.reads.sorted(by: { $0.key < $1.key }) {
                for caller in Self.callers {
                    let expected = Self.expectedRead(service: service, caller: caller.name)
                    for (verb, uri) in verbs {
                        let response = try await client.get(uri, headers: caller.headers)
                        #expect(response.status == expected, "\(caller.name) \(verb) \(service): \(response.text.prefix(200))")
                        if expected != .ok {
                            #expect(response.odataError != nil, "\(caller.name) \(verb) \(service) has an OData error body")
                        }
                        if expected == .unauthorized {
                            #expect(response.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                        }
                    }
                }
            }
        }
    }

    @Test("Anonymous access is a per-service setting that applies to the next request", arguments: Backend.allCases)
    func anonymousSetting(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            let admin = basic(TestAccounts.admin) + [.contentType: "application/json"]
            #expect(try await client.get("/hockey/Teams?$top=1").status == .unauthorized)
            #expect(try await client.send(.put, "/admin/access", headers: admin, body: #"{"service":"hockey","anonymous":"read"}"#).status == .noContent)
            #expect(try await client.get("/hockey/Teams?$top=1").status == .ok)
            #expect(try await client.send(.put, "/admin/access", headers: admin, body: #"{"service":"cardealer","anonymous":"none"}"#).status == .noContent)
            #expect(try await client.get("/cardealer/Person(1)").status == .unauthorized)
            #expect(try await client.get("/cardealer/Person(1)", headers: basic(TestAccounts.nobody)).status == .forbidden)
            let access = try await client.get("/admin/access", headers: basic(TestAccounts.admin))
            #expect(access.json == .object(JSONObject([(key: "cardealer", value: .string("none")), (key: "hockey", value: .string("read")),
                                                     (key: "speakeasy", value: .string("read"))])))
        }
    }

    @Test("A custom role reads only the tables granted to it, including through $expand", arguments: Backend.allCases)
    func tableGrants(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("coach", password: "pw-coach", roles: [RoleAssignment(role: "teamonly")])
            try await admin.grant(role: "teamonly", service: "hockey", table: "Teams", actions: [.read], rowFilter: nil)
        }) { client in
            let coach = basic("coach")
            #expect(try await client.get("/hockey/Teams?$top=3", headers: coach).status == .ok)
            // A table the role holds no right on is not part of the service it is served: no set,
            // no navigation property, nothing in $metadata — as if it did not exist.
            let metadata = try await client.get("/hockey/$metadata", headers: coach)
            #expect(metadata.status == .ok)
            #expect(metadata.text.contains("Teams") && !metadata.text.contains("Players") && !metadata.text.contains("Equipment"))
            let players = try await client.get("/hockey/Players?$top=3", headers: coach)
            #expect(players.status == .notFound)
            #expect(players.text == (try await client.get("/hockey/Nope?$top=3", headers: coach)).text.replacingOccurrences(of: "Nope", with: "Players"))
            #expect(try await client.get("/hockey/Teams(1)/Players", headers: coach).status == .notFound)
            let expand = try await client.get("/hockey/Teams(1)?$expand=Players", headers: coach)
            #expect(expand.status == .badRequest)
            #expect(expand.text == (try await client.get("/hockey/Teams(1)?$expand=Nope", headers: coach)).text.replacingOccurrences(of: "Nope", with: "Players"))
            // The role gives nothing in other services; cardealer stays open to anyone.
            #expect(try await client.get("/cardealer/Person(1)", headers: coach).status == .ok)
        }
    }

    @Test("Row filters with claims apply to the target, $count, keys, $filter and $expand", arguments: Backend.allCases)
    func rowFiltersOnReads(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.addUser("Bauer", password: "pw-Bauer", roles: [RoleAssignment(role: "brandrep")])
            try await admin.grant(role: "brandrep", service: "hockey", table: "Equipment", actions: [.read], rowFilter: "brand eq $claims.sub")
            try await admin.grant(role: "brandrep", service: "hockey", table: "Players", actions: [.read], rowFilter: nil)
        }) { client in
            let rep = basic("Bauer")
            let root = basic(TestAccounts.admin)
            let all = Int(try await client.get("/hockey/Equipment/$count", headers: root).text) ?? -1
            let bauer = Int(try await client.get("/hockey/Equipment/$count?$filter=brand%20eq%20'Bauer'", headers: root).text) ?? -1
            #expect(bauer > 0 && bauer < all)

            #expect(try await client.get("/hockey/Equipment/$count", headers: rep).text == String(bauer))
            let page = try await client.get("/hockey/Equipment?$top=500", headers: rep)
            let brands = Set((page.json["d"]["results"]?.arrayValue ?? []).compactMap { $0["brand"]?.stringValue })
            #expect(brands == ["Bauer"])
            #expect(try await client.get("/hockey/Equipment?$filter=brand%20eq%20'CCM'", headers: rep).json["d"]["results"]?.arrayValue?.count == 0)
            // Equipment 3 is a CCM helmet: it does not exist for this caller.
            #expect(try await client.get("/hockey/Equipment(3)", headers: rep).status == .notFound)
            #expect(try await client.get("/hockey/Equipment(1)", headers: rep).status == .ok)

            // Expanded from players, only Bauer equipment appears.
            let players = try await client.get("/hockey/Players?$expand=Equipment&$top=200", headers: rep)
            #expect(players.status == .ok)
            let expanded = (players.json["d"]["results"]?.arrayValue ?? []).flatMap { $0["Equipment"]["results"]?.arrayValue ?? [] }
            #expect(!expanded.isEmpty)
            #expect(Set(expanded.compactMap { $0["brand"]?.stringValue }) == ["Bauer"])
            // A $filter through a navigation sees only visible rows of the joined table.
            let viaJoin = try await client.get("/hockey/Equipment/$count?$filter=Players/playerID%20ge%200", headers: rep)
            #expect(viaJoin.status == .ok)
        }
    }

    @Test("Administration of the same data while the server runs (as the CLI does) applies within the maximum age; /admin at once",
          arguments: Backend.allCases)
    func administerWhileRunning(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client, configuration in
            let late = basic("late")
            #expect(try await client.get("/hockey/Teams?$top=1", headers: late).status == .unauthorized)
            // Another process's grant is seen once the server's snapshot of grants is older than
            // its maximum age (1 s); accounts and roles are read on every request.
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.addUser("late", password: "pw-late", roles: [RoleAssignment(role: "teamonly", service: "hockey")])
                try await admin.grant(role: "teamonly", service: "hockey", table: "Teams", actions: [.read], rowFilter: "city eq 'Toronto'")
            }
            let teams = try await Self.poll(client, "/hockey/Teams", headers: late) { $0.status == .ok }
            #expect(teams.status == .ok)
            let cities = Set((teams.json["d"]["results"]?.arrayValue ?? []).compactMap { $0["city"]?.stringValue })
            #expect(cities == ["Toronto"])
            _ = try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.revoke(role: "teamonly", service: "hockey", table: nil, actions: nil)
            }
            #expect(try await Self.poll(client, "/hockey/Teams", headers: late) { $0.status == .forbidden }.status == .forbidden)

            // Anonymous access set by another process, the same way.
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.setAnonymousAccess(.read, service: "hockey")
            }
            #expect(try await Self.poll(client, "/hockey/Teams?$top=1") { $0.status == .ok }.status == .ok)

            // Through the server's own /admin, every change applies to the very next request.
            let json = basic(TestAccounts.admin) + [.contentType: "application/json"]
            #expect(try await client.send(.put, "/admin/access", headers: json, body: #"{"service":"hockey","anonymous":"none"}"#).status == .noContent)
            #expect(try await client.get("/hockey/Teams?$top=1").status == .unauthorized)
            let grant = #"{"role":"teamonly","service":"hockey","table":"Teams","actions":["read"],"filter":"city eq 'Boston'"}"#
            #expect(try await client.send(.post, "/admin/grants", headers: json, body: grant).status == .noContent)
            let boston = try await client.get("/hockey/Teams", headers: late)
            #expect(boston.status == .ok)
            #expect(Set((boston.json["d"]["results"]?.arrayValue ?? []).compactMap { $0["city"]?.stringValue }) == ["Boston"])
            let everyTable = #"{"role":"teamonly","service":"hockey","actions":["read"]}"#
            #expect(try await client.send(.post, "/admin/grants", headers: json, body: everyTable).status == .noContent)
            #expect(try await client.get("/hockey/Players?$top=1", headers: late).status == .ok)
            let removed = try await client.send(.delete, "/admin/grants?role=teamonly&service=hockey", headers: basic(TestAccounts.admin))
            #expect(removed.json["removed"] == .number("2"))
            #expect(try await client.get("/hockey/Teams", headers: late).status == .forbidden)
            #expect(try await client.get("/hockey/", headers: late).status == .forbidden)
        }
    }

    /// Sends `uri` until `accept` holds for the answer or `timeout` (far above the server's 1 s
    /// maximum age, for a busy machine) has passed; answers the last response.
    static func poll(
        _ client: any TestClientProtocol, _ uri: String, headers: HTTPFields = [:], timeout: Duration = .seconds(10),
        until accept: (TestResponse) -> Bool
    ) async throws -> TestResponse {
        let deadline = ContinuousClock.now + timeout
        while true {
            let response = try await client.get(uri, headers: headers)
            if accept(response) || ContinuousClock.now >= deadline { return response }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("The /admin API is for admins only", arguments: Backend.allCases)
    func adminGuard(_ backend: Backend) async throws {
        try await withAuthServer(backend) { client in
            #expect(try await client.get("/admin/users").status == .unauthorized)
            #expect(try await client.get("/admin/users", headers: basic(TestAccounts.editor)).status == .forbidden)
            let users = try await client.get("/admin/users", headers: basic(TestAccounts.admin))
            #expect(users.status == .ok)
            let names = (users.json["users"]?.arrayValue ?? []).compactMap { $0["username"]?.stringValue }
            #expect(names.contains("root") && names.contains("hockeyfan") && names.contains("editor"))
            #expect(!users.text.contains("$2"), "no password hash in listings")

            let json = basic(TestAccounts.admin) + [.contentType: "application/json"]
            let created = try await client.send(.post, "/admin/users", headers: json,
                                                body: #"{"username":"dana","password":"pw-dana","roles":["reader@hockey"]}"#)
            #expect(created.status == .created)
            #expect(try await client.get("/hockey/Teams?$top=1", headers: basic("dana")).status == .ok)
            #expect(try await client.send(.post, "/admin/users", headers: json, body: #"{"username":"dana","password":"x"}"#).status == .conflict)
            #expect(try await client.send(.post, "/admin/users", headers: json, body: #"{"username":"a:b","password":"x"}"#).status == .badRequest)

            // Grants are checked against the service's tables and the filter against the table's columns.
            let badFilter = #"{"role":"r","service":"hockey","table":"Equipment","actions":["read"],"filter":"nonsense eq 1"}"#
            #expect(try await client.send(.post, "/admin/grants", headers: json, body: badFilter).status == .badRequest)
            let badTable = #"{"role":"r","service":"hockey","table":"Nope","actions":["read"]}"#
            #expect(try await client.send(.post, "/admin/grants", headers: json, body: badTable).status == .notFound)
            let good = #"{"role":"r","service":"hockey","table":"Equipment","actions":["read","update"],"filter":"brand eq $claims.sub"}"#
            #expect(try await client.send(.post, "/admin/grants", headers: json, body: good).status == .noContent)
            let grants = try await client.get("/admin/grants?service=hockey", headers: basic(TestAccounts.admin))
            #expect(grants.json["grants"]?.arrayValue?.count == 2)
            let removed = try await client.send(.delete, "/admin/grants?role=r&service=hockey&actions=update", headers: basic(TestAccounts.admin))
            #expect(removed.json["removed"] == .number("1"))

            // Roles taken away apply to the next request.
            #expect(try await client.send(.delete, "/admin/roles?username=dana&role=reader&service=hockey",
                                          headers: basic(TestAccounts.admin)).status == .noContent)
            #expect(try await client.get("/hockey/Teams?$top=1", headers: basic("dana")).status == .forbidden)
        }
    }
}
