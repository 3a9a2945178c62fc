import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// `$filter`: every operator, literal form and function, on both databases, against rows written by hand.
@Suite("$filter")
struct FilterTests {
    /// (filter, ids of the matching Sample rows)
    static let cases: [(String, [Int])] = [
        // Comparison and null: `ne` is true for null, as OData's two-valued logic says.
        ("count eq 10", [1, 6]), ("count ne 10", [2, 3, 4, 5]), ("count gt 3", [1, 3, 6]), ("count ge 3", [1, 2, 3, 6]),
        ("count lt 3", [5]), ("count le 3", [2, 5]), ("count eq null", [4]), ("count ne null", [1, 2, 3, 5, 6]),
        ("null eq name", [4]), ("name eq null", [4]),
        // Logic and precedence.
        ("count gt 3 and flag eq true", [1, 3, 6]), ("count lt 5 or name eq 'Gamma'", [2, 3, 5]),
        ("not (count gt 3)", [2, 4, 5]), ("not flag", [2, 4, 5]), ("flag", [1, 3, 6]), ("flag ne true", [2, 4, 5]),
        ("count gt 3 or count lt 1 and flag", [1, 3, 6]), ("(count gt 3 or count lt 1) and flag", [1, 3, 6]),
        ("count lt 1 or count gt 3 and not flag", [5]),
        // Arithmetic: integer division truncates, division by zero is null, not an error.
        ("count add 5 eq 15", [1, 6]), ("count sub 10 eq 0", [1, 6]), ("count mul 2 eq 14", [3]), ("count div 2 eq 3", [3]),
        ("count mod 3 eq 1", [1, 3, 6]), ("count div 0 eq 1", []), ("not (count div 0 eq 1)", [1, 2, 3, 4, 5, 6]),
        ("count add 2 mul 3 eq 16", [1, 6]), ("(count add 2) mul 3 eq 15", [2]), ("-count eq -7", [3]),
        ("price div 2M eq 6.25M", [1, 6]), ("price mod 5M eq 2.5M", [1, 6]), ("ratio mul 2d eq 4.5d", [2]),
        // Literal forms.
        ("price gt 12.5M", [3]), ("price eq 12.50m", [1, 6]), ("price lt 0M", [5]), ("ratio lt 0d", [3]),
        ("ratio gt 1.5E+00", [2, 6]), ("ratio eq 0.5f", [1]), ("ratio ge 1E10", [6]), ("big eq 10000000000L", [1]),
        ("big lt 0L", [2]), ("big eq 7", [3]), ("name eq 'O''Brien'", [5]), ("name gt 'Gamma'", [2, 5, 6]),
        ("born eq datetime'2009-11-01T00:00'", [1, 5]), ("born eq datetime'2009-11-01T00:00:00'", [1, 5]),
        ("born gt datetime'2010-06-15T12:30:45.122'", [2, 3]), ("born lt datetime'2009-11-01T00:00:01'", [1, 5]),
        ("born eq datetime'2010-06-15T12:30:45.123'", [2]),
        ("seen eq datetimeoffset'2009-11-01T00:00:00Z'", [1]), ("seen lt datetimeoffset'2009-11-01T01:00:00+02:00'", [5]),
        ("seen gt datetimeoffset'2010-01-01T00:00:00Z'", [2]),
        ("alarm eq time'PT13H20M'", [1]), ("alarm lt time'PT9H'", [2, 6]), ("alarm eq time'PT8H0M30S'", [2]),
        ("uid eq guid'aaaaaaaa-0000-0000-0000-000000000003'", [3]), ("data eq X'0A1B'", [1]), ("data eq binary'FF'", [2]),
        ("flag eq true", [1, 3, 6]), ("flag eq false", [2, 5]), ("true", [1, 2, 3, 4, 5, 6]), ("false", []),
        // String functions: case-sensitive, 0-based, null in null out.
        ("substringof('lph', name)", [1, 6]), ("substringof('LPH', name)", []), ("startswith(name,'al')", [6]),
        ("startswith(name,'')", [1, 2, 3, 5, 6]), ("endswith(name,'ta')", [2]), ("endswith(name,'Alphabet')", []),
        ("length(name) eq 5", [1, 3, 6]), ("not (length(name) eq 5)", [2, 4, 5]), ("indexof(name,'ph') eq 2", [1, 6]),
        ("indexof(name,'zz') eq -1", [1, 2, 3, 5, 6]), ("replace(name,'a','o') eq 'Gommo'", [3]),
        ("substring(name,1) eq 'lpha'", [1, 6]), ("substring(name,1,2) eq 'et'", [2]), ("substring(name,10) eq ''", [1, 2, 3, 5, 6]),
        ("tolower(name) eq 'alpha'", [1, 6]), ("toupper(name) eq 'BETA'", [2]), ("trim(concat(' ', name)) eq 'beta'", [2]),
        ("concat(name,'!') eq 'Gamma!'", [3]), ("concat(name, 'x') eq null", [4]),
        // Date and time parts, in UTC for offsets.
        ("year(born) eq 2009", [1, 5, 6]), ("month(born) eq 6", [2]), ("day(born) eq 31", [3]), ("hour(born) eq 12", [2]),
        ("minute(born) eq 30", [2]), ("second(born) eq 59", [3]), ("second(born) eq 1", [6]), ("hour(alarm) eq 13", [1]),
        ("minute(alarm) eq 59", [5]), ("year(seen) eq 2009", [1, 5, 6]), ("hour(seen) eq 22", [5]), ("day(seen) eq 1", [1, 6]),
        // Rounding half away from zero; floor and ceiling of decimals and doubles.
        ("round(price) eq 13M", [1, 6]), ("round(price) eq -3M", [5]), ("round(ratio) eq -2d", [3]), ("round(ratio) eq 2d", [2]),
        ("floor(price) eq -4M", [5]), ("ceiling(price) eq 1M", [2]), ("floor(ratio) eq -2d", [3]), ("ceiling(ratio) eq 3d", [2]),
        ("floor(price) eq 12M", [1, 6]), ("ceiling(price) eq 100M", [3]),
        // isof and cast.
        ("isof(count,'Edm.Int32')", [1, 2, 3, 5, 6]), ("cast(price,'Edm.Int32') eq 12", [1, 6]),
        ("cast(ratio,'Edm.Int32') eq -1", [3]), ("cast(count,'Edm.Decimal') eq 7M", [3]),
        // Through single-valued navigation (the parent row): missing parents read as null.
        ("Sample_parentID/name eq 'Alpha'", [2, 3]), ("Sample_parentID/Sample_parentID/name eq 'Alpha'", [4, 5]),
        ("Sample_parentID/name eq null", [1, 6]), ("Sample_parentID/count gt 5 and count lt 5", [2, 5]), ("cast(ratio,'Edm.Int32') eq null", [4, 6]),
    ]

    @Test("Every operator, literal and function", arguments: Backend.allCases)
    func filters(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [SampleService.service]) { client in
            for (filter, expected) in Self.cases {
                let query = try QueryOptions(parsing: "$filter=" + PercentEncoding.encodeQueryValue(filter) + "&$orderby=id&$select=id")
                let response = try await client.get("/types/Sample?" + query.queryString)
                guard response.status == .ok else {
                    Issue.record("\(filter): \(response.status) \(response.odataError?.message ?? response.text)")
                    continue
                }
                let ids = (response.json["d"]["results"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
                #expect(ids == expected, "\(filter)")
            }
        }
    }

    @Test("Refusals name the problem", arguments: Backend.allCases)
    func refusals(_ backend: Backend) async throws {
        try await withServer(backend, demo: false, services: [SampleService.service]) { client in
            let cases: [(String, String)] = [
                ("name eq 1", "cannot compare Edm.String with Edm.Int32"),
                ("nme eq 'a'", "Property 'nme' does not exist"),
                ("length(count) eq 1", "length"),
                ("count eq", "expected an operand after 'eq'"),
                ("born eq '2009-11-01'", "Edm.DateTime"),
                ("count", "Boolean"),
            ]
            for (filter, fragment) in cases {
                let response = try await client.get("/types/Sample?$filter=" + PercentEncoding.encodeQueryValue(filter))
                #expect(response.status == .badRequest, "\(filter)")
                let message = response.odataError?.message ?? ""
                #expect(message.contains(fragment), "\(filter): \(message)")
                #expect(message.hasPrefix("$filter"), "\(filter): \(message)")
            }
        }
    }

    @Test("Navigation paths from the car dealer: PersonCar/Car/make", arguments: Backend.allCases)
    func navigationPaths(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let fords = try await client.get("/cardealer/PersonCar?$filter=Car/make%20eq%20'Ford'%20and%20personID%20eq%201&$select=personCarID")
            #expect(fords.json["d"]["results"]?.arrayValue?.compactMap { $0["personCarID"]?.intValue } == [1, 2])
            let deep = try await client.get("/cardealer/PersonCarMaintenance/$count?$filter=PersonCar/Car/model%20eq%20'Mustang'%20and%20PersonCar/Person/lastName%20eq%20'Samson'")
            #expect(deep.text == "10")
            let explorer = try await client.get("/cardealer/PersonCarMaintenance/$count?$filter=PersonCar/Car/model%20eq%20'Explorer'%20and%20PersonCar/personID%20eq%201")
            #expect(explorer.text == "10")
            let collection = try await client.get("/cardealer/Person?$filter=PersonCar/personCarID%20eq%201")
            #expect(collection.status == .badRequest)
        }
    }
}
