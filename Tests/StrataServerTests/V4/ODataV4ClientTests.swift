import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataIdentity
import Testing

/// Real OData V4 clients against a running `strata` (issue 38, point 9): python-odata, which
/// reflected no entity set from Strata's V2 `$metadata`, and odatapy's client (modelled on Apache
/// Olingo). Each reflects every demo service, queries, follows server-driven paging and writes; every
/// value they report is compared with this test's own reads of the same server.
///
/// The clients live in a pinned virtualenv (Fixtures/odata-clients; `.ci/run` makes it, a test run
/// without it makes it first, which needs PyPI). python-odata asks for `$metadata` without any
/// version header, so the services are set to answer V4 by default — what an operator does for
/// such clients (`strata service set NAME --odata-version 4.0`).
@Suite("OData V4: real clients (python-odata, odatapy)", .serialized)
struct ODataV4ClientTests {
    static let services = ["cardealer", "hockey", "speakeasy"]

    static let environment = FixtureVirtualenv(fixture: "odata-clients", environment: "STRATA_ODATA_CLIENTS_VENV",
                                               default: "/tmp/strata-odata-clients-venv")

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs one client's part of clients.py and answers what it printed.
    static func run(_ client: String, port: Int) async throws -> JSONValue {
        try await environment.install()
        let result = try await ChildProcess.run(environment.python, [environment.fixture + "/clients.py", client, "http://127.0.0.1:\(port)",
                                                                             "pyclient", TestAccounts.password("pyclient")] + services)
        guard result.status == 0 else {
            throw Failure(description: "\(client) failed (\(result.status)): \(result.errors.suffix(3000))")
        }
        return try JSONValue.parse(Array(result.output.utf8))
    }

    /// A V4 server of the demo data with an editor `pyclient`, every demo service answering V4 by default.
    static func withV4Server<T: Sendable>(_ backend: Backend, _ test: @Sendable (StrataProcess) async throws -> T) async throws -> T {
        try await PostgresSlots.run(backend) {
            let configuration = try await TestDatabases.shared.configuration(backend)
            defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
            try await Administration.with(configuration, logger: TestDatabases.logger) { admin in
                try await admin.addUser("pyclient", password: TestAccounts.password("pyclient"), roles: [RoleAssignment(role: "editor")])
                for service in services { try await admin.configureService(service, odataVersion: .v4) }
            }
            // Pages of 50 rows, so that reading a set of 300 follows @odata.nextLink.
            let arguments = StrataProcess.serveArguments(configuration, ["--page-size", "50"], postgres: ["--database-connections", "4"])
            let server = try await StrataProcess.start(try StrataProcess.executable(), arguments: arguments)
            defer { server.kill() }
            return try await test(server)
        }
    }

    /// The sets a V4 service document lists.
    static func sets(_ server: StrataProcess, _ service: String) async throws -> [String] {
        let document = try await server.request(.get, "/\(service)/")
        return (document.json["value"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.sorted()
    }

    /// `personID`s a V4 read of `query` gives, following next links.
    static func personIDs(_ server: StrataProcess, _ query: String) async throws -> [Int] {
        var ids: [Int] = []
        var next: String? = "/cardealer/Person?" + query
        while let url = next {
            let page = try await server.request(.get, url)
            ids += (page.json["value"]?.arrayValue ?? []).compactMap { $0["personID"]?.intValue }
            // The link is absolute; the path from the service on is what this server answers.
            next = page.json["@odata.nextLink"]?.stringValue.flatMap { link in link.range(of: "/cardealer/").map { String(link[$0.lowerBound...]) } }
        }
        return ids
    }

    @Test("python-odata reflects every demo service, queries, expands, creates, updates and deletes", arguments: Backend.allCases)
    func pythonOData(_ backend: Backend) async throws {
        try await Self.withV4Server(backend) { server in
            let seen = try await Self.run("python-odata", port: server.port)
            for service in Self.services {
                let sets = try await Self.sets(server, service)
                #expect(!sets.isEmpty)
                #expect(seen["sets"][service]?.arrayValue?.compactMap(\.stringValue) == sets, "\(service)")
            }
            #expect(seen["samson"]?.arrayValue?.compactMap(\.intValue) == (try await Self.personIDs(server, "$filter=lastName%20eq%20'Samson'")))
            let j = try await Self.personIDs(server, "$filter=startswith(firstName,'J')&$orderby=personID%20desc")
            #expect(seen["jDescending"]?.arrayValue?.compactMap(\.intValue) == Array(j.prefix(2)))
            #expect(seen["jCount"]?.intValue == j.count)
            let cars = try await server.request(.get, "/cardealer/PersonCar?$filter=personID%20eq%201&$expand=Car&$orderby=personCarID")
            let expected = (cars.json["value"]?.arrayValue ?? []).map { JSONValue.array([$0["personCarID"] ?? .null, $0["Car"]["make"] ?? .null]) }
            #expect(seen["firstPersonCars"]?.arrayValue == expected)
            let carID = try #require(seen["created"]["carID"]?.intValue)
            #expect(seen["created"]["make"]?.stringValue == "PyOData" && seen["created"]["hasCreateStamp"] == .bool(true))
            #expect(seen["updated"]?.arrayValue?.compactMap(\.stringValue) == ["PyOData", "Changed"])
            #expect(seen["afterDelete"]?.intValue == 0)
            #expect(try await server.request(.get, "/cardealer/Car(\(carID))").status == .notFound)
        }
    }

    @Test("odatapy's client (Olingo's design) reads the documents, filters, counts, pages through nextLink, expands and writes",
          arguments: Backend.allCases)
    func odatapy(_ backend: Backend) async throws {
        try await Self.withV4Server(backend) { server in
            let seen = try await Self.run("odatapy", port: server.port)
            for service in Self.services {
                #expect(seen["sets"][service]?.arrayValue?.compactMap(\.stringValue) == (try await Self.sets(server, service)), "\(service)")
            }
            let filtered = try await server.request(.get, "/cardealer/Person?$filter=personID%20gt%2010%20and%20startswith(firstName,'J')&$orderby=personID&$top=3")
            let expected = (filtered.json["value"]?.arrayValue ?? []).map { JSONValue.array([$0["personID"] ?? .null, $0["firstName"] ?? .null]) }
            #expect(expected.count == 3 && seen["filtered"]?.arrayValue == expected)
            #expect(seen["count"]?.intValue == 300)
            #expect(seen["allIDs"]?.arrayValue?.compactMap(\.intValue) == Array(1...300), "every page, in order, once")
            let personCars = try await server.request(.get, "/cardealer/PersonCar?$filter=personID%20eq%201")
            #expect(seen["expandedCars"]?.arrayValue?.compactMap(\.intValue) == (personCars.json["value"]?.arrayValue ?? []).compactMap { $0["carID"]?.intValue }.sorted())
            let carID = try #require(seen["created"]["carID"]?.intValue)
            #expect(seen["created"]["make"]?.stringValue == "Olingo" && seen["created"]["etag"] == .bool(true))
            #expect(seen["updated"]?.stringValue == "Patched")
            #expect(seen["afterDelete"]?.intValue == 0)
            #expect(try await server.request(.get, "/cardealer/Car(\(carID))").status == .notFound)
            for form in ["multipart", "json"] {
                let batch = seen["batch-" + form]
                #expect(batch["statuses"]["1"]?.intValue == 201 && batch["statuses"]["2"]?.intValue == 204, "\(form): \(batch ?? .null)")
                #expect(batch["statuses"]["3"]?.intValue == 200 && batch["statuses"]["5"]?.intValue == 404, "\(form)")
                #expect(batch["read"]?.arrayValue == [.array([.string("Batch-" + form), .string("Two")])], "\(form)")
                #expect(batch["never"]?.intValue == 0, "\(form): the failed change set kept nothing")
            }
            // The JSON form answers every request of the failed group: the one that failed, and 424 for the other.
            #expect(seen["batch-json"]["statuses"]["4"]?.intValue == 424)
        }
    }
}
