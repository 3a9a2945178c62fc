import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
@testable import StrataServer
@testable import StrataIdentity
import Testing

/// V4's `$expand` with options (issue 38, point 4): each option on the related entities of each
/// parent, checked against what plain reads of the same rows say; rights and refusals.
@Suite("OData V4: $expand with options")
struct ODataV4ExpandTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]

    /// `carID`s of a person's PersonCar rows, read plainly.
    static func carIDs(_ client: some TestClientProtocol, person: Int, headers: HTTPFields = [:]) async throws -> [Int] {
        let response = try await client.get("/cardealer/PersonCar?$filter=personID%20eq%20\(person)&$orderby=personCarID", headers: v4 + headers)
        return (response.json["value"]?.arrayValue ?? []).compactMap { $0["carID"]?.intValue }
    }

    @Test("$filter, $orderby, $skip, $top, $count and $select per parent, and a nested $expand, agree with plain reads", arguments: Backend.allCases)
    func optionsPerParent(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let url = "/cardealer/Person?$orderby=personID&$top=6&$select=firstName,personID"
                + "&$expand=PersonCar($filter=carID%20gt%201;$orderby=carID%20desc;$skip=1;$top=2;$count=true;$select=carID;$expand=Car($select=make))"
            let response = try await client.get(url, headers: Self.v4)
            #expect(response.status == .ok, "\(response.text)")
            #expect(response.json["@odata.context"]?.stringValue == "http://localhost/cardealer/$metadata#Person(personID,firstName,PersonCar(carID,Car(make)))")
            let people = try #require(response.json["value"]?.arrayValue)
            #expect(people.count == 6)
            var nonEmpty = 0
            for person in people {
                let id = try #require(person["personID"]?.intValue)
                let matching = try await Self.carIDs(client, person: id).filter { $0 > 1 }.sorted(by: >)
                let expected = Array(matching.dropFirst(1).prefix(2))
                let related = try #require(person["PersonCar"]?.arrayValue, "\(person)")
                #expect(related.compactMap { $0["carID"]?.intValue } == expected, "person \(id)")
                #expect(person["PersonCar@odata.count"]?.intValue == matching.count, "person \(id)")
                #expect(person["lastName"] == nil)
                for entry in related {
                    #expect(entry["personCarID"] == nil, "only carID is selected: \(entry)")
                    let car = try #require(entry["Car"]?.objectValue)
                    #expect(Set(car.keys.filter { !$0.hasPrefix("@") }) == ["make"])
                    let carID = try #require(entry["carID"]?.intValue)
                    let plain = try await client.get("/cardealer/Car(\(carID))", headers: Self.v4)
                    #expect(car["make"] == plain.json["make"])
                }
                if !related.isEmpty { nonEmpty += 1 }
            }
            #expect(nonEmpty > 0, "the demo data gives some people two cars or more")
        }
    }

    @Test("V4 writes an expanded navigation property whatever $select names; V2 keeps its rule", arguments: Backend.allCases)
    func expandedAlwaysWritten(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let v4 = try await client.get("/cardealer/Person(1)?$select=firstName&$expand=PersonCar", headers: Self.v4)
            #expect(v4.json["PersonCar"]?.arrayValue?.isEmpty == false, "\(v4.text)")
            #expect(v4.json["lastName"] == nil)
            let v2 = try await client.get("/cardealer/Person(1)?$select=firstName&$expand=PersonCar")
            #expect(v2.json["d"]["PersonCar"] == nil, "\(v2.text)")
        }
    }

    @Test("A grant's row filter on the related table holds inside the options: counts and pages see allowed rows only",
          arguments: Backend.allCases)
    func rowFilters(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: { admin in
            try await admin.setAnonymousAccess(.none, service: "cardealer")
            try await admin.addUser("highcars", password: TestAccounts.password("highcars"), roles: [RoleAssignment(role: "highcars")])
            try await admin.grant(role: "highcars", service: "cardealer", table: "Person", actions: [.read], rowFilter: nil)
            try await admin.grant(role: "highcars", service: "cardealer", table: "PersonCar", actions: [.read], rowFilter: "carID gt 5")
        }) { client in
            let caller = basic("highcars")
            let response = try await client.get("/cardealer/Person?$orderby=personID&$top=10&$expand=PersonCar($count=true;$orderby=carID;$top=1)",
                                                headers: Self.v4 + caller)
            #expect(response.status == .ok, "\(response.text)")
            var hidden = 0
            for person in response.json["value"]?.arrayValue ?? [] {
                let id = try #require(person["personID"]?.intValue)
                let everything = try await Self.carIDs(client, person: id, headers: basic(TestAccounts.reader))
                let allowed = everything.filter { $0 > 5 }.sorted()
                hidden += everything.count - allowed.count
                #expect(person["PersonCar@odata.count"]?.intValue == allowed.count, "person \(id)")
                #expect(person["PersonCar"]?.arrayValue?.compactMap { $0["carID"]?.intValue } == Array(allowed.prefix(1)), "person \(id)")
            }
            #expect(hidden > 0, "some related rows are outside the filter, so the test can tell")
        }
    }

    @Test("Refusals: $levels, paths through navigation in the options, unknown names, V2 syntax errors — 400 with V4's error body, nothing read",
          arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let cases: [(String, String)] = [
                ("$expand=PersonCar($levels=2)", "$levels is not supported"),
                ("$expand=PersonCar($filter=Car/make%20eq%20'Ford')", "goes through a navigation property"),
                ("$expand=PersonCar($filter=nothing%20eq%201)", "in the options of PersonCar: $filter: Property 'nothing' does not exist"),
                ("$expand=PersonCar($select=nothing)", "in the options of PersonCar: $select"),
                ("$expand=PersonCar($expand=Nowhere)", "Nowhere"),
                ("$expand=PersonCar($top=1", "expected ';' or ')'"),
            ]
            for (query, message) in cases {
                let response = try await client.get("/cardealer/Person?\(query)", headers: Self.v4)
                #expect(response.status == .badRequest, "\(query): \(response.text)")
                #expect(response.json["error"]["message"]?.stringValue?.contains(message) == true, "\(query): \(response.text)")
            }
        }
    }
}
