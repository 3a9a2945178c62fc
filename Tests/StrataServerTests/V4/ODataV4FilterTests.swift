import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// V4's `$filter` and `$orderby` (issue 38): every V2 filter of ``FilterTests`` that V4 can write
/// returns the same rows in both versions; V4's own constructs (`in`, `contains`, date functions,
/// lambdas, `$count`) return the rows computed independently; bad V4 syntax is a 400 in V4's body.
@Suite("OData V4: $filter and $orderby")
struct ODataV4FilterTests {
    static let v4: HTTPFields = [HTTPField.Name("OData-MaxVersion")!: "4.0"]

    /// The V4 spelling of a V2 filter of ``FilterTests``; nil when V4 has none Strata reads alike.
    static func v4Equivalent(_ filter: String) -> String? {
        // Binary literals are hex in V2 and base64url in V4: written separately below.
        if filter.contains("X'") || filter.contains("binary'") { return nil }
        var text = filter
        func replace(_ pattern: String, _ template: String) {
            let regex = try! NSRegularExpression(pattern: pattern)
            text = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        }
        replace(#"substringof\(('[^']*'),\s*([A-Za-z_]+)\)"#, "contains($2,$1)")
        replace(#"datetime'([^']*)'"#, "$1Z")
        replace(#"datetimeoffset'([^']*)'"#, "$1")
        replace(#"time'([^']*)'"#, "duration'$1'")
        replace(#"guid'([^']*)'"#, "$1")
        replace(#"(?<![A-Za-z_0-9.])(\d+(?:\.\d+)?)[MmL](?![A-Za-z0-9_])"#, "$1")
        replace(#"(?<![A-Za-z_0-9.])(\d+(?:\.\d+)?)[df](?![A-Za-z0-9_])"#, "$1e0")
        return text
    }

    private static func ids(_ client: some TestClientProtocol, _ path: String, v4: Bool, key: String = "id") async throws -> [Int]? {
        let response = try await client.get(path, headers: v4 ? Self.v4 : [:])
        guard response.status == .ok else {
            Issue.record("\(path): \(response.status) \(response.text.prefix(300))")
            return nil
        }
        let rows = v4 ? response.json["value"]?.arrayValue : response.json["d"]["results"]?.arrayValue
        return (rows ?? []).compactMap { $0[key]?.intValue }
    }

    private static func query(_ filter: String, orderBy: String = "id", select: String = "id") -> String {
        "$filter=" + PercentEncoding.encodeQueryValue(filter) + "&$orderby=" + PercentEncoding.encodeQueryValue(orderBy) + "&$select=" + select
    }

    @Test("Every V2 filter with a V4 equivalent returns the same rows in both versions", arguments: Backend.allCases)
    func sameRowsAsV2(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [SampleService.service]) { client in
            var compared = 0
            for (filter, expected) in FilterTests.cases {
                guard let v4 = Self.v4Equivalent(filter) else { continue }
                let v2Rows = try await Self.ids(client, "/types/Sample?" + Self.query(filter), v4: false)
                let v4Rows = try await Self.ids(client, "/types/Sample?" + Self.query(v4), v4: true)
                #expect(v2Rows == expected, "V2 \(filter)")
                #expect(v4Rows == expected, "V4 \(v4) (V2 \(filter))")
                compared += 1
            }
            #expect(compared > 100)
        }
    }

    @Test("V4's own constructs on the sample rows: the rows of their V2 equivalents", arguments: Backend.allCases)
    func v4Constructs(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [SampleService.service]) { client in
            let pairs: [(v4: String, v2: String)] = [
                ("name in ('Alpha','Gamma')", "name eq 'Alpha' or name eq 'Gamma'"),
                ("count in (10, 3) and flag", "(count eq 10 or count eq 3) and flag"),
                ("not (name in ('Alpha'))", "not (name eq 'Alpha')"),
                ("contains(name,'lph')", "substringof('lph',name)"),
                ("date(born) eq 2009-11-01", "year(born) eq 2009 and month(born) eq 11 and day(born) eq 1"),
                ("born ge 2009-11-01 and born lt 2009-11-02", "born ge datetime'2009-11-01T00:00' and born lt datetime'2009-11-02T00:00'"),
                ("time(born) eq 00:00:01", "hour(born) eq 0 and minute(born) eq 0 and second(born) eq 1"),
                // The time of day keeps the fraction of the second: 12:30:45.123 is not 12:30:45.
                ("time(born) eq 12:30:45", "born eq null and born ne null"),
                ("alarm eq 13:20:00", "alarm eq time'PT13H20M'"),
                ("fractionalseconds(born) gt 0", "born eq datetime'2010-06-15T12:30:45.123' or born eq datetime'2011-12-31T23:59:59.999'"),
                ("born lt now() and born gt mindatetime() and born lt maxdatetime()", "born ne null"),
                ("uid eq aaaaaaaa-0000-0000-0000-000000000003", "uid eq guid'aaaaaaaa-0000-0000-0000-000000000003'"),
                ("data eq binary'Chs'", "data eq X'0A1B'"),
                ("ratio eq INF or ratio eq -INF", "ratio eq INF or ratio eq -INF"),
                ("$it/count eq 10", "count eq 10"),
            ]
            for (v4, v2) in pairs {
                let expected = try await Self.ids(client, "/types/Sample?" + Self.query(v2), v4: false)
                let actual = try await Self.ids(client, "/types/Sample?" + Self.query(v4), v4: true)
                #expect(actual == expected, "\(v4) vs \(v2)")
            }
            // $orderby through single-valued navigation, in V4 as in V2.
            let v2Order = try await Self.ids(client, "/types/Sample?$orderby=Sample_parentID/name%20desc,id&$select=id", v4: false)
            let v4Order = try await Self.ids(client, "/types/Sample?$orderby=Sample_parentID/name%20desc,id&$select=id", v4: true)
            #expect(v2Order == v4Order && v4Order?.count == 6)
        }
    }

    @Test("Lambdas and $count over PersonCar: the people computed from PersonCar's rows", arguments: Backend.allCases)
    func lambdas(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.get("/cardealer/PersonCar?$select=personID,carID,Car&$expand=Car&$top=1000")
            let links = (response.json["d"]["results"]?.arrayValue ?? []).compactMap { row -> (person: Int, car: Int, make: String)? in
                guard let person = row["personID"]?.intValue, let car = row["carID"]?.intValue,
                      let make = row["Car"]["make"]?.stringValue else { return nil }
                return (person, car, make)
            }
            #expect(!links.isEmpty)
            let people = try #require(try await Self.ids(client, "/cardealer/Person?$select=personID&$orderby=personID&$top=1000", v4: true, key: "personID"))
            func expect(_ filter: String, _ matches: (Int) -> Bool) async throws {
                let path = "/cardealer/Person?" + Self.query(filter, orderBy: "personID", select: "personID") + "&$top=1000"
                let actual = try await Self.ids(client, path, v4: true, key: "personID")
                #expect(actual == people.filter(matches), "\(filter)")
            }
            try await expect("PersonCar/any(pc:pc/Car/make eq 'Ford')") { p in links.contains { $0.person == p && $0.make == "Ford" } }
            try await expect("PersonCar/all(pc:pc/Car/make eq 'Ford')") { p in !links.contains { $0.person == p && $0.make != "Ford" } }
            try await expect("PersonCar/any()") { p in links.contains { $0.person == p } }
            try await expect("not PersonCar/any()") { p in !links.contains { $0.person == p } }
            try await expect("PersonCar/$count gt 1") { p in links.filter { $0.person == p }.count > 1 }
            try await expect("PersonCar/$count eq 0") { p in !links.contains { $0.person == p } }
            // Nested, with the outer variable: someone else also owns one of the person's cars.
            try await expect("PersonCar/any(pc:pc/Car/PersonCar/any(o:o/personID ne pc/personID))") { p in
                links.contains { mine in mine.person == p && links.contains { $0.car == mine.car && $0.person != p } }
            }
            // $it inside a lambda refers to the person.
            try await expect("PersonCar/any(pc:pc/personID eq $it/personID and pc/Car/make ne 'Ford')") { p in
                links.contains { $0.person == p && $0.make != "Ford" }
            }
            // $orderby by a count: each person's number of cars, most first.
            let ordered = try await Self.ids(client, "/cardealer/Person?$orderby=PersonCar/$count%20desc,personID&$select=personID&$top=1000", v4: true, key: "personID")
            let counts = Dictionary(grouping: links, by: \.person).mapValues(\.count)
            #expect(ordered == people.sorted { (counts[$0] ?? 0, -$0) > (counts[$1] ?? 0, -$1) })
        }
    }

    @Test("Bad V4 syntax is a 400 in V4's error body that says what to fix", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let cases: [(String, String)] = [
                ("substringof('a',firstName)", "contains"), ("personID eq 1L", "type suffix"),
                ("createDate eq datetime'2009-11-01T00:00'", "without a prefix"), ("firstName eq Model.Color'Red'", "enumeration"),
                ("PersonCar/any(pc:pc/nothing eq 1)", "nothing"), ("PersonCar/firstName eq 'a'", "lambda"),
                ("PersonCar/all()", "all needs"), ("firstName/any(x:true)", "collection"), ("PersonCar/$count eq 'a'", "cannot compare"),
                ("firstName in (personID)", "cannot compare"), ("PersonCar/any(pc:pc/Car/make)", "Boolean"),
            ]
            for (filter, expected) in cases {
                let response = try await client.get("/cardealer/Person?$filter=" + PercentEncoding.encodeQueryValue(filter), headers: Self.v4)
                #expect(response.status == .badRequest, "\(filter)")
                let message = response.json["error"]["message"]?.stringValue ?? ""
                #expect(message.contains(expected), "\(filter): \(message)")
            }
        }
    }
}
