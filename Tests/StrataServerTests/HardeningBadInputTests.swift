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

/// Input that answered 500 (or differently on the two databases) answers the same 4xx on both, with
/// a message that says what to fix, and changes nothing.
@Suite("Hardening: bad input")
struct HardeningBadInputTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    static func sql(_ client: any TestClientProtocol, _ body: String) async throws -> TestResponse {
        try await client.send(.post, "/cardealer/$sql", headers: json, body: body)
    }

    @Test("Integer overflow is a 400 IntegerOverflow on both databases, in $sql and in $filter", arguments: Backend.allCases)
    func integerOverflow(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            for query in [
                "SELECT 9223372036854775807 + 1 AS x",
                "SELECT -9223372036854775807 - 2 AS x",
                "SELECT abs(-9223372036854775808) AS x",
                "SELECT -9223372036854775808 / -1 AS x",
                "SELECT -(-9223372036854775808) AS x",
                "SELECT personID * 9223372036854775807 AS x FROM Person",
            ] {
                let response = try await Self.sql(client, #"{"sql":"\#(query)"}"#)
                #expect(response.status == .badRequest, "\(query): \(response.text)")
                #expect(response.odataError?.code == "IntegerOverflow", "\(query): \(response.text)")
            }
            // In range, the same arithmetic answers exactly, in 64 bits, on both.
            let fits = try await Self.sql(client, #"{"sql":"SELECT 9223372036854775806 + 1 AS x, 2147483647 + 1 AS y, -7 / 2 AS z"}"#)
            #expect(fits.status == .ok, "\(fits.text)")
            #expect(fits.json["rows"][0] == .array([.string("9223372036854775807"), .string("2147483648"), .number("-3")]), "\(fits.text)")

            for filter in ["carID mul 9223372036854775807L gt 0", "carID add 9223372036854775807L gt 0", "-(-9223372036854775807L sub carID) gt 0"] {
                let response = try await client.get("/cardealer/Car?$filter=" + PercentEncoding.encodeQueryValue(filter))
                #expect(response.status == .badRequest, "\(filter): \(response.text)")
                #expect(response.odataError?.code == "IntegerOverflow", "\(filter): \(response.text)")
            }
            // Past 32 bits, still exact: integer arithmetic is 64-bit on both databases.
            let wide = try await client.get("/cardealer/Car/$count?$filter=" + PercentEncoding.encodeQueryValue("carID mul 2000000000 gt 2000000000"))
            #expect(wide.status == .ok && Int(wide.text) ?? 0 > 0, "\(wide.text)")
        }
    }

    @Test("NUL characters in a $filter literal, a $sql parameter, a JSON string or a key are a 400 on both databases", arguments: Backend.allCases)
    func nulCharacters(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Person/$count").text
            let responses = [
                try await client.get("/cardealer/Car?$filter=make%20eq%20'%00'"),
                try await client.get("/cardealer/Car?$filter=startswith(make,'a%00b')"),
                try await Self.sql(client, #"{"sql":"SELECT firstName FROM Person WHERE firstName = :n","parameters":{"n":"a\u0000b"}}"#),
                try await client.send(.post, "/cardealer/Person", headers: Self.json,
                                      body: #"{"firstName":"A\u0000","lastName":"B","createDate":"\/Date(0)\/"}"#),
                try await client.send(.post, "/speakeasy/Speakers", headers: Self.json,
                                      body: #"{"PartitionKey":"Speakers","RowKey":"x\u0000y","Name":"N"}"#),
            ]
            for response in responses {
                #expect(response.status == .badRequest, "\(response.text)")
                #expect(response.odataError?.message.contains("NUL character") == true, "\(response.text)")
            }
            #expect(try await client.get("/cardealer/Person/$count").text == before, "a refused write changed the table")
        }
    }

    @Test("DateTime outside years 1–9999 is a 400 on both databases and nothing is stored", arguments: Backend.allCases)
    func dateRange(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.get("/cardealer/Person/$count").text
            for date in ["/Date(-99999999999999)/", "/Date(253402300800000)/", "/Date(9223372036854775)/"] {
                let body = #"{"firstName":"Out","lastName":"Of Range","createDate":"\#(date.replacingOccurrences(of: "/", with: "\\/"))"}"#
                let response = try await client.send(.post, "/cardealer/Person", headers: Self.json, body: body)
                #expect(response.status == .badRequest, "\(date): \(response.text)")
                #expect(response.odataError?.message.contains("years 1 to 9999") == true, "\(date): \(response.text)")
            }
            #expect(try await client.get("/cardealer/Person/$count").text == before)
            // The edges are stored and read back exactly.
            for date in ["-62135596800000", "253402300799999"] {
                let created = try await client.send(.post, "/cardealer/Person", headers: Self.json,
                                                    body: #"{"firstName":"Edge","lastName":"\#(date)","createDate":"\/Date(\#(date))\/"}"#)
                #expect(created.status == .created, "\(date): \(created.text)")
                #expect(created.json["d"]["createDate"] == .string("/Date(\(date))/"), "\(created.text)")
            }
        }
    }

    @Test("substring beyond 2^31, HOUR(NULL) and an oversized sign-in body answer, not 500", arguments: Backend.allCases)
    func edges(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let substring = try await client.get("/cardealer/Car?$filter=" + PercentEncoding.encodeQueryValue("substring(make,2147483648L) eq ''"))
            #expect(substring.status == .ok, "\(substring.text)")
            let all = try await client.get("/cardealer/Car/$count").text
            #expect(try await client.get("/cardealer/Car/$count?$filter=" + PercentEncoding.encodeQueryValue("substring(make,2147483648L,9223372036854775807L) eq ''")).text == all)
            let hour = try await Self.sql(client, #"{"sql":"SELECT HOUR(NULL) AS h, SUBSTR(make, 9223372036854775807) AS s FROM Car LIMIT 1"}"#)
            #expect(hour.status == .ok && hour.json["rows"][0] == .array([.null, .string("")]), "\(hour.text)")
            // SUBSTR counts as PostgreSQL does on both: positions before 1 are empty, a negative length is nothing.
            let substr = try await Self.sql(client, #"{"sql":"SELECT SUBSTR('abcdef', -1, 3) AS a, SUBSTR('abcdef', 2, -1) AS b, SUBSTR('abcdef', 0) AS c, SUBSTR('abcdef', 5, 9) AS d"}"#)
            #expect(substr.json["rows"][0] == .array([.string("a"), .string(""), .string("abcdef"), .string("ef")]), "\(substr.text)")
            // Operators and functions of nothing but NULL are NULL, where PostgreSQL alone would not know their type.
            let nulls = try await Self.sql(client, #"{"sql":"SELECT ABS(NULL) AS a, NULL + NULL AS b, COALESCE(NULL, NULL) AS c FROM Car LIMIT 1"}"#)
            #expect(nulls.status == .ok && nulls.json["rows"][0] == .array([.null, .null, .null]), "\(nulls.text)")
            for filter in ["-(null) eq null", "cast(null,'Edm.String') eq null", "concat(cast(null,'Edm.String'),make) eq null",
                           "-(null) lt -(1)", "(floor(-1E308) mod -(null)) eq null", "(1 sub -(null)) eq null"] {
                let response = try await client.get("/cardealer/Car/$count?$filter=" + PercentEncoding.encodeQueryValue(filter))
                #expect(response.status == .ok, "\(filter): \(response.text)")
            }
            // HAVING without groups: refused alike (SQLite would fail where PostgreSQL answers), or answered alike.
            let having = try await Self.sql(client, #"{"sql":"SELECT MONTH(NULL) AS m HAVING COUNT(*) > 1"}"#)
            #expect(having.status == .badRequest && having.odataError?.code == "SQLNotAllowed", "\(having.text)")
            let counted = try await Self.sql(client, #"{"sql":"SELECT COUNT(*) AS n FROM Car HAVING COUNT(*) > 1"}"#)
            #expect(counted.status == .ok && counted.json["rows"]?.arrayValue?.count == 1, "\(counted.text)")
            // A decimal beyond what Edm.Decimal holds (SQLite's infinity, PostgreSQL's 617-digit numeric) is a 400, not a crash.
            let huge = try await Self.sql(client, #"{"sql":"SELECT CAST(1e308 AS DECIMAL) * CAST(1e308 AS DECIMAL) AS x FROM Maintenance LIMIT 1"}"#)
            #expect(huge.status == .badRequest && huge.odataError?.message.contains("Edm.Decimal") == true, "\(huge.text)")
            #expect(try await client.get("/health").status == .ok)
            let big = #"{"username":""# + String(repeating: "a", count: 70_000) + #"","password":"x"}"#
            let token = try await client.send(.post, "/auth/token", headers: Self.json, body: big)
            #expect(token.status == .contentTooLarge, "\(token.text)")
            #expect(token.odataError?.code == "PayloadTooLarge")
        }
    }
}
