import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// `$orderby`, `$top`, `$skip`, `$select`, `$expand`, `$inlinecount`, `$count`, `$skiptoken` and
/// server-driven paging, on both databases.
@Suite("Query options")
struct QueryOptionTests {
    private func ids(_ response: TestResponse, _ key: String = "id") -> [Int] {
        (response.json["d"]["results"]?.arrayValue ?? []).compactMap { $0[key]?.intValue }
    }

    @Test("$orderby: several keys, directions, nulls first ascending, navigation paths and functions", arguments: Backend.allCases)
    func orderBy(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [SampleService.service]) { client in
            let cases: [(String, [Int])] = [
                ("name", [4, 1, 3, 5, 6, 2]),          // ordinal: uppercase before lowercase, null first
                ("name desc", [2, 6, 5, 3, 1, 4]),
                ("count desc,id", [1, 6, 3, 2, 5, 4]),
                ("count desc,id desc", [6, 1, 3, 2, 5, 4]),
                ("Sample_parentID/name,id", [1, 6, 2, 3, 5, 4]),
                ("length(name) desc,id", [5, 1, 3, 6, 2, 4]),
                ("seen,id", [3, 4, 5, 1, 6, 2]),
                ("price", [4, 5, 2, 1, 6, 3]),
                ("born desc,id", [3, 2, 6, 1, 5, 4]),
            ]
            for (orderBy, expected) in cases {
                let response = try await client.get("/types/Sample?$select=id&$orderby=" + PercentEncoding.encodeQueryValue(orderBy))
                #expect(ids(response) == expected, "\(orderBy)")
            }
            let bad = try await client.get("/types/Sample?$orderby=name%20up")
            #expect(bad.status == .badRequest)
            #expect(bad.odataError?.message.contains("use asc or desc") == true)
        }
    }

    @Test("$top and $skip, and on navigation collections", arguments: Backend.allCases)
    func topSkip(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let page = try await client.get("/cardealer/Person?$orderby=personID%20desc&$top=3&$skip=2&$select=personID")
            #expect(ids(page, "personID") == [298, 297, 296])
            let nav = try await client.get("/cardealer/Person(1)/PersonCar?$filter=carID%20eq%205&$select=personCarID")
            #expect(ids(nav, "personCarID") == [2])
            let navCount = try await client.get("/cardealer/Person(1)/PersonCar/$count?$filter=carID%20gt%202")
            #expect(navCount.text == "1")
            let topped = try await client.get("/cardealer/Person/$count?$top=5")
            #expect(topped.text == "5")
            let tooMany = try await client.get("/cardealer/Person?$top=100000")
            #expect(tooMany.status == .badRequest)
            let negative = try await client.get("/cardealer/Person?$skip=-1")
            #expect(negative.status == .badRequest)
        }
    }

    @Test("$select narrows properties and navigation links; keys still make the URI", arguments: Backend.allCases)
    func select(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/Person(1)?$select=firstName,PersonCar")
            let person = response.json["d"]
            let keys = person?.objectValue?.keys ?? []
            #expect(keys == ["__metadata", "firstName", "PersonCar"])
            #expect(person["__metadata"]["uri"]?.stringValue == "http://localhost/cardealer/Person(1)")
            // The ETag hashes the whole row, so it is the same with or without $select.
            let whole = try await client.get("/cardealer/Person(1)")
            #expect(person["__metadata"]["etag"] != nil)
            #expect(person["__metadata"]["etag"] == whole.json["d"]["__metadata"]["etag"])

            let star = try await client.get("/cardealer/Car(2)?$select=*")
            #expect(star.json["d"]?.objectValue?.keys.contains("PersonCar") == true)
            #expect(star.json["d"]["model"]?.stringValue == "Explorer")

            let v1 = try await client.get("/cardealer/Person(1)?$select=firstName", headers: [.maxDataServiceVersion: "1.0"])
            #expect(v1.status == .badRequest)
            #expect(v1.odataError?.message.contains("OData 2.0") == true)
        }
    }

    @Test("Seed 000: Person(1)?$expand=PersonCar,PersonCar/Car in the V1 and the V2 shape", arguments: Backend.allCases)
    func seedExpand(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let v1 = try await client.get("/cardealer/Person(1)?$expand=PersonCar,PersonCar/Car", headers: [.maxDataServiceVersion: "1.0"])
            #expect(v1.status == .ok)
            let person = v1.json["d"]
            #expect(person["firstName"]?.stringValue == "Bob")
            let links = person["PersonCar"]?.arrayValue ?? []
            #expect(links.count == 2)
            #expect(links.map { $0["personCarID"]?.intValue } == [1, 2])
            #expect(links[0]["createStamp"]?.stringValue == "/Date(1257103813990)/")
            #expect(links[0]["Car"]["__metadata"]["uri"]?.stringValue == "http://localhost/cardealer/Car(2)")
            #expect(links[0]["Car"]["model"]?.stringValue == "Explorer")
            #expect(links[0]["Car"]["manufactureDate"]?.stringValue == "/Date(1099242508440)/")
            #expect(links[0]["Car"]["PersonCar"]["__deferred"]["uri"]?.stringValue == "http://localhost/cardealer/Car(2)/PersonCar")
            #expect(links[0]["Person"]["__deferred"]["uri"]?.stringValue == "http://localhost/cardealer/PersonCar(1)/Person")
            #expect(links[1]["Car"]["model"]?.stringValue == "Mustang")
            #expect(links[1]["Car"]["createStamp"]?.stringValue == "/Date(1257109563660)/")

            let v2 = try await client.get("/cardealer/Person(1)?$expand=PersonCar,PersonCar/Car")
            let wrapped = v2.json["d"]["PersonCar"]["results"]?.arrayValue ?? []
            #expect(wrapped.map { $0["Car"]["model"]?.stringValue } == ["Explorer", "Mustang"])
        }
    }

    @Test("$expand: single-valued, multi-level, with $select inside, and with a filter on the parents", arguments: Backend.allCases)
    func expand(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let single = try await client.get("/cardealer/PersonCar(1)?$expand=Car,Person")
            #expect(single.json["d"]["Car"]["model"]?.stringValue == "Explorer")
            #expect(single.json["d"]["Person"]["lastName"]?.stringValue == "Samson")

            let selected = try await client.get("/cardealer/Person?$filter=personID%20eq%201&$expand=PersonCar/Car&$select=firstName,PersonCar/personCarID,PersonCar/Car/model")
            let person = selected.json["d"]["results"][0]
            #expect(person?.objectValue?.keys == ["__metadata", "firstName", "PersonCar"])
            let link = person["PersonCar"]["results"][0]
            #expect(link?.objectValue?.keys == ["__metadata", "personCarID", "Car"])
            #expect(link["Car"]?.objectValue?.keys == ["__metadata", "model"])

            let three = try await client.get("/cardealer/Person(1)?$expand=PersonCar/PersonCarMaintenance/Maintenance")
            let records = three.json["d"]["PersonCar"]["results"][0]["PersonCarMaintenance"]["results"]?.arrayValue ?? []
            #expect(records.count == 10)
            #expect(records.allSatisfy { $0["Maintenance"]["description"]?.stringValue?.isEmpty == false })

            let events = try await client.get("/speakeasy/Events?$top=3&$expand=Speakers&$select=EventName,Speakers/Name")
            let speakers = (events.json["d"]["results"]?.arrayValue ?? []).compactMap { $0["Speakers"]["Name"]?.stringValue }
            #expect(speakers.count == 3)

            let unknown = try await client.get("/cardealer/Person?$expand=Cars")
            #expect(unknown.status == .badRequest)
            let property = try await client.get("/cardealer/Person?$expand=firstName")
            #expect(property.status == .badRequest)
        }
    }

    @Test("$expand two levels under 1,000 parents runs at most 3 SQL statements", arguments: Backend.allCases)
    func expandWithoutNPlusOne(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [FleetService.service()]) { client in
            let before = try await statementCount(client)
            let response = try await client.get("/fleet/Owner?$expand=Vehicle,Vehicle/Trip")
            let after = try await statementCount(client)
            let owners = response.json["d"]["results"]?.arrayValue ?? []
            #expect(owners.count == 1000)
            #expect(owners.last["Vehicle"]["results"][0]["Trip"]["results"]?.arrayValue?.count == 2)
            #expect(owners.allSatisfy { $0["Vehicle"]["results"]?.arrayValue?.count == 1 })
            #expect(after - before <= 3, "\(after - before) statements")
        }
    }

    @Test("$inlinecount=allpages gives the total as a string; $count the plain number", arguments: Backend.allCases)
    func counts(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/Car?$inlinecount=allpages&$top=2&$filter=make%20eq%20'Ford'")
            let total = try #require(response.json["d"]["__count"]?.stringValue)
            let count = try await client.get("/cardealer/Car/$count?$filter=make%20eq%20'Ford'")
            #expect(count.headers[.contentType] == "text/plain;charset=utf-8")
            #expect(total == count.text)
            #expect(Int(total)! > 2)
            #expect(response.json["d"]["results"]?.arrayValue?.count == 2)
            let none = try await client.get("/cardealer/Car?$inlinecount=none&$top=1")
            #expect(none.json["d"]["__count"] == nil)
            let bad = try await client.get("/cardealer/Car?$inlinecount=some")
            #expect(bad.status == .badRequest)
        }
    }

    @Test("Server-driven paging: __next links with $skiptoken visit every row exactly once", arguments: Backend.allCases)
    func paging(_ backend: Backend) async throws {
        try await withServer(backend, pageSize: 7) { client in
            for query in ["$select=personID", "$select=personID&$orderby=lastName,firstName%20desc",
                          "$select=personID&$orderby=ssn%20desc&$filter=personID%20lt%20150", "$select=personID&$top=40"] {
                // A V1 client cannot follow __next, so it gets the whole collection (V1 has no $select).
                let unpaged = query.replacingOccurrences(of: "$select=personID&", with: "").replacingOccurrences(of: "$select=personID", with: "")
                let all = try await client.get("/cardealer/Person?\(unpaged)", headers: [.maxDataServiceVersion: "1.0"])
                let expected = (all.json["d"]?.arrayValue ?? []).compactMap { $0["personID"]?.intValue }
                var seen: [Int] = []
                var next: String? = "/cardealer/Person?\(query)"
                var pages = 0
                while let url = next {
                    let page = try await client.get(url)
                    #expect(page.status == .ok, "\(url): \(page.text)")
                    let rows = ids(page, "personID")
                    #expect(rows.count <= 7)
                    seen += rows
                    next = page.json["d"]["__next"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) }
                    pages += 1
                    if pages > 100 { break }
                }
                #expect(seen == expected, "\(query)")
                #expect(Set(seen).count == seen.count)
            }
            let forged = try await client.get("/cardealer/Person?$skiptoken='x'")
            #expect(forged.status == .badRequest)
        }
    }

    @Test("$format=json works; other formats are 406 naming what is supported", arguments: Backend.allCases)
    func format(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let json = try await client.get("/cardealer/Person(1)?$format=json")
            #expect(json.status == .ok)
            let atom = try await client.get("/cardealer/Person(1)?$format=atom")
            #expect(atom.status == .notAcceptable)
            #expect(atom.odataError?.message.contains("JSON") == true)
        }
    }

    @Test("Limits: $expand depth and width, $filter nesting, URL length are clear 400s", arguments: [Backend.sqlite])
    func limits(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let deep = try await client.get("/cardealer/Person?$expand=PersonCar/Person/PersonCar/Person/PersonCar/Person")
            #expect(deep.status == .badRequest)
            let nested = String(repeating: "(", count: 60) + "personID eq 1" + String(repeating: ")", count: 60)
            let tooDeep = try await client.get("/cardealer/Person?$filter=" + PercentEncoding.encodeQueryValue(nested))
            #expect(tooDeep.status == .badRequest)
            let long = try await client.get("/cardealer/Person?$filter=" + PercentEncoding.encodeQueryValue(
                (1...700).map { "personID eq \($0)" }.joined(separator: " or ")))
            #expect(long.status == .badRequest)
        }
    }
}

/// The server's `strata_sql_statements_total`, read from `/metrics`.
func statementCount(_ client: any TestClientProtocol) async throws -> Int {
    let metrics = try await client.get("/metrics").text
    let line = metrics.split(separator: "\n").first { $0.hasPrefix("strata_sql_statements_total ") }
    return Int(line?.split(separator: " ").last ?? "") ?? -1
}
