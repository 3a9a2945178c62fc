import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The pieces made faster after the benchmarks (issue 10) keep their results: base64url over bytes
/// (ETags, tokens, JWT parts) agrees with Foundation's base64; ETags keep their value (tags computed
/// independently in Python match); sort keys that cannot be null are ordered without NULLS FIRST/LAST,
/// so PostgreSQL reads them off an index, while nullable ones keep OData's nulls-first order.
@Suite("Hot paths")
struct HotPathTests {
    static func foundation(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("Encoding matches Foundation's base64 made url-safe, and decoding reverses it, for 0 to 64 bytes")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                let text = Base64URL.encode(bytes)
                #expect(text == Self.foundation(bytes))
                #expect(Base64URL.decode(text) == bytes)
            }
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test("Decoding refuses padding, characters outside the url-safe alphabet and impossible lengths")
    func refusals() {
        #expect(Base64URL.decode("QQ==") == nil)
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("ab c") == nil)
        #expect(Base64URL.decode("") == [])
        #expect(UnverifiedToken.base64URLDecode("eyJhIjoxfQ") == Data(#"{"a":1}"#.utf8))
    }

    @Test("An entity tag keeps its value: SHA-256 of the canonical encoding, first 16 bytes, base64url")
    func entityTagValue() {
        let properties = [
            EntityProperty(name: "personID", type: .int32, isNullable: false),
            EntityProperty(name: "firstName", type: .string, isNullable: false),
            EntityProperty(name: "ssn", type: .string),
            EntityProperty(name: "createDate", type: .dateTime, isNullable: false),
        ]
        let values: [ODataValue] = [.int32(50000), .string("Zoë"), .null,
                                    .dateTime(ODataDateTime(millisecondsSince1970: 1_305_675_580_149))]
        // Computed outside Swift: hashlib.sha256(b"\x01" + Σ len32(name) name len32(kind+text) kind+text).
        #expect(EntityTag(properties: properties, values: values).opaque == "P0mJeBAEprIknKXcM0Pb0Q")

        let more = ["a", "b", "c", "d", "e", "f"].map { EntityProperty(name: $0, type: .string) }
        let others: [ODataValue] = [.int64(-42), .boolean(true), .double(1.5), .time(ODataTime(microseconds: 3_723_000_000)!),
                                    .guid(UUID(uuidString: "0A1B2C3D-0000-4000-8000-00000000ABCD")!), .int64(.min)]
        #expect(EntityTag(properties: more, values: others).opaque == "dJsgRshIvEFn4V-TyjN6AQ")
    }

    @Test("Quoting a catalog identifier doubles embedded quotes only")
    func quoting() {
        #expect(SQLDialect.sqlite.quote("Person") == #""Person""#)
        #expect(SQLDialect.postgres.quote(#"odd"name"#) == #""odd""name""#)
    }

    @Test("ORDER BY says NULLS FIRST/LAST only where a null can occur; keyset continuation likewise")
    func orderWithoutNullsClause() {
        var query = SelectQuery(items: [SelectColumn(expression: .column(alias: "t0", name: "personID"), alias: nil)],
                                from: TableName(schema: "cardealer", name: "Person"), alias: "t0")
        let ssn = SortKey(expression: .column(alias: "t0", name: "ssn"), descending: true, type: .string)
        let key = SortKey(expression: .column(alias: "t0", name: "personID"), descending: true, type: .int32, canBeNull: false)
        query.orderBy = [ssn.orderTerm, key.orderTerm]
        query.filter(KeysetContinuation.after([.string("x"), .int32(7)], keys: [ssn, key]))
        let sql = SQLRenderer.render(query, dialect: .postgres).sql
        #expect(sql.hasSuffix(#"ORDER BY "t0"."ssn" DESC NULLS LAST, "t0"."personID" DESC"#))
        // After ("x", 7) descending: ssn < 'x' or null, or ssn = 'x' and personID < 7 (never null, so no IS NULL).
        #expect(sql.contains(#""t0"."ssn" IS NULL"#))
        #expect(!sql.contains(#""t0"."personID" IS NULL"#))
    }

    @Test("Request URLs split on bytes: leading slashes, escapes, empty options, '=' inside values, '+' as space")
    func requestURLs() throws {
        let url = try ODataRequestURL(rawPath: "//car%64ealer/Person(1)/PersonCar",
                                      rawQuery: "$filter=name%20eq%20'a=b'&&$top=2&flag&q=a+b&")
        #expect(url.serviceName == "cardealer")
        #expect(url.path.segments == [PathSegment("Person", key: .single(.int32(1))), PathSegment("PersonCar")])
        #expect(url.queryItems.map { "\($0.name)|\($0.value)" } == ["$filter|name eq 'a=b'", "$top|2", "flag|", "q|a b"])
        #expect(url.value(of: "$top") == "2")
        #expect(try ODataRequestURL(rawPath: "/cardealer", rawQuery: nil).path.segments.isEmpty)
        #expect(try ODataRequestURL(rawPath: "/Zoë/Person", rawQuery: nil).serviceName == "Zoë")
        #expect(throws: ODataError.self) { try ODataRequestURL(rawPath: "/car%6", rawQuery: nil) }
        #expect(throws: ODataError.self) { try ODataRequestURL(rawPath: "/cardealer/Person", rawQuery: "a=%ZZ") }
    }

    @Test("Service paths skip the router; the root and reserved names do not")
    func servicePaths() {
        for path in ["/cardealer/Person(1)", "/cardealer", "//hockey/", "/Health", "/he%61lth", "/strata/x"] {
            #expect(StrataResponder.isServicePath(path), "\(path)")
        }
        for path in ["/", "", "//", "/health", "/metrics", "/auth/token", "/admin/users", "/blobs", "/blobs/c/x", "/strata_system"] {
            #expect(!StrataResponder.isServicePath(path), "\(path)")
        }
    }

    @Test("The raw path the responder and the authentication middleware compare is Hummingbird's uri.path")
    func rawPaths() {
        for target in ["/cardealer/Person(1)?$top=1&$filter=a%20eq%201", "/auth/token?grant_type=password", "/auth/token",
                       "/x%3Fy?z=1", "/a#fragment", "/a?b#c", "/", "/cardealer?", "?only=query"] {
            let request = Request(head: HTTPRequest(method: .get, scheme: nil, authority: nil, path: target),
                                  body: RequestBody(buffer: ByteBuffer()))
            #expect(String(request.rawPath) == request.uri.path, "\(target)")
        }
    }
}
