import Foundation
import StrataCore
import Testing

@Suite("Resource paths and keys")
struct ResourcePathTests {
    @Test("Segments, keys and system segments parse")
    func parse() throws {
        let path = try ResourcePath.parse("Person(1)/PersonCar(2)/Car")
        #expect(path.segments == [PathSegment("Person", key: .single(.int32(1))), PathSegment("PersonCar", key: .single(.int32(2))),
                                  PathSegment("Car")])
        let composite = try ResourcePath.parse("Events(PartitionKey='Events',RowKey='a%2Fb')")
        #expect(composite.segments[0].key == .named([.init(name: "PartitionKey", value: .string("Events")),
                                                     .init(name: "RowKey", value: .string("a/b"))]))
        // A slash inside a quoted key does not split the path, even unencoded.
        let slash = try ResourcePath.parse("Events(PartitionKey='x',RowKey='a/b')/$links/Speakers")
        #expect(slash.segments.map(\.name) == ["Events", "$links", "Speakers"])
        #expect(try ResourcePath.parse("Person/").segments.map(\.name) == ["Person"])
    }

    @Test("Quotes are found among Unicode scalars: a combining mark after a quote does not hide it")
    func combiningMarks() throws {
        let parts = try KeyPredicate.splitTopLevel("'\u{301}a,b',2", on: ",")
        #expect(parts.count == 2)
        let key = try KeyPredicate.parse("Name='\u{301}x',Id=2")
        #expect(key == .named([.init(name: "Name", value: .string("\u{301}x")), .init(name: "Id", value: .int32(2))]))
        let path = try ResourcePath.parse("T(Name='\u{301}/x',Id=2)/Nav")
        #expect(path.segments.map(\.name) == ["T", "Nav"])
    }

    @Test("Formatting keys round-trips through parsing")
    func roundTrip() throws {
        let values: [ODataValue] = [.int32(7), .int64(9_000_000_000), .string("O'Brien / Zoë"), .guid(UUID()),
                                    .dateTime(ODataDateTime(millisecondsSince1970: 1_257_008_908_440)), .decimal(Decimal(string: "12.50")!)]
        for value in values {
            let segment = PathSegment("Set", key: .single(value))
            let parsed = try ResourcePath.parse(Substring(segment.urlText))
            #expect(parsed.segments == [segment], "\(value)")
        }
        let composite = PathSegment("Events", key: .forKey([(name: "PartitionKey", value: .string("a,b")), (name: "RowKey", value: .string("c'd"))]))
        #expect(try ResourcePath.parse(Substring(composite.urlText)).segments == [composite])
    }

    @Test("Integers read as before whether or not they take the short-integer fast path")
    func integers() throws {
        let cases: [(String, ODataValue?)] = [
            ("0", .int32(0)), ("-0", .int32(0)), ("+7", .int32(7)), ("007", .int32(7)), ("-123456789", .int32(-123_456_789)),
            ("999999999", .int32(999_999_999)), ("1234567890", .int32(1_234_567_890)), ("2147483647", .int32(.max)),
            ("2147483648", .int64(2_147_483_648)), ("-2147483649", .int64(-2_147_483_649)), ("1L", .int64(1)),
            ("-", nil), ("+", nil), ("", nil), ("1a", nil), ("--1", nil), ("1-", nil), ("\u{663}", nil),
        ]
        for (text, expected) in cases {
            #expect((try? ODataLiteral.parse(text)) == expected, "\(text)")
        }
        #expect(try KeyPredicate.parse("1") == .single(.int32(1)))
        #expect(try KeyPredicate.parse("-42") == .single(.int32(-42)))
        #expect(try KeyPredicate.parse(" 1 ") == .single(.int32(1)))
        #expect(try KeyPredicate.parse("2147483648") == .single(.int64(2_147_483_648)))
    }

    @Test("Malformed paths are 400s that say what is wrong")
    func malformed() {
        let cases: [(String, String)] = [
            ("Person(1", "does not end with ')'"), ("Person()", "empty"), ("Person('x)", "not closed"),
            ("Per son", "not a valid name"), ("Person(1,2)", "2 unnamed values"), ("Person(a=1,a=2)", "appears twice"),
            ("Person(%G0)", "invalid percent escape"), ("Person(abc)", "not a value"),
        ]
        for (text, fragment) in cases {
            #expect(throws: ODataError.self, "\(text)") { try ResourcePath.parse(Substring(text)) }
            do {
                _ = try ResourcePath.parse(Substring(text))
            } catch {
                #expect(error.status == 400)
                #expect(error.message.contains(fragment), "\(text): \(error.message)")
            }
        }
    }
}
