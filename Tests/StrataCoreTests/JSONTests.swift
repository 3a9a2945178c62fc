import Foundation
import StrataCore
import Testing

@Suite("JSON reader and writer")
struct JSONTests {
    @Test("/Date(ms)/ literals: signs, offsets, escaped slashes; malformed ones are not dates")
    func dateLiterals() {
        let instant = ODataDateTime(millisecondsSince1970: 1_257_008_908_440)
        for text in ["/Date(1257008908440)/", #"\/Date(1257008908440)\/"#, "/Date(1257008908440)\\/", "/Date(+1257008908440)/",
                     "/Date(1257008908440+0120)/", "/Date(1257008908440-0930)/"] {
            #expect(ODataJSON.parseDateTime(text) == instant, "\(text)")
        }
        #expect(ODataJSON.parseDateTime("/Date(-86400000)/") == ODataDateTime(millisecondsSince1970: -86_400_000))
        #expect(ODataJSON.parseDateTime("/Date(0)/") == ODataDateTime(millisecondsSince1970: 0))
        // The extremes ODataDateTime holds (microseconds in an Int64); beyond them, not a date rather than a crash.
        #expect(ODataJSON.parseDateTime("/Date(9223372036854775)/") == ODataDateTime(millisecondsSince1970: 9_223_372_036_854_775))
        #expect(ODataJSON.parseDateTime("/Date(-9223372036854775)/") == ODataDateTime(millisecondsSince1970: -9_223_372_036_854_775))
        for text in ["/Date()/", "/Date(-)/", "/Date(12a)/", "/Date(1257008908440)", "Date(1257008908440)/", "/Date(1257008908440+012)/",
                     "/Date(1257008908440+01200)/", "/Date(1257008908440+01x0)/", "/Date(9223372036854776)/", "/Date(-9223372036854776)/",
                     "/Date(9223372036854775808)/", "/Date(99999999999999999999)/",
                     "/date(1)/", "/Date(1)/ ", "/Dat", ""] {
            #expect(ODataJSON.parseDateTime(text) == nil, "\(text)")
        }
    }

    @Test("Writer escapes what JSON requires and inserts commas itself")
    func writer() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("text")
        writer.string("quote \" backslash \\ newline \n tab \t bell \u{7} é 😀")
        writer.key("list")
        writer.beginArray()
        writer.number(1)
        writer.bool(true)
        writer.null()
        writer.endArray()
        writer.key(prepared: Array(#""prepared":"#.utf8))
        writer.string("x")
        writer.endObject()
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == #"{"text":"quote \" backslash \\ newline \n tab \t bell \u0007 é 😀","list":[1,true,null],"prepared":"x"}"#)
        #expect(try JSONValue.parse(text)["text"]?.stringValue == "quote \" backslash \\ newline \n tab \t bell \u{7} é 😀")
    }

    @Test("Commas stay right in containers nested past 64 levels, where the writer's comma bits spill into a second word",
          arguments: [1, 63, 64, 65, 128, 129, 200])
    func deepNesting(depth: Int) {
        // Each level: [n, {"k": <next level>}, n] — an element before and after every inner container.
        var writer = JSONWriter()
        var expected = ""
        for level in 0..<depth {
            writer.beginArray()
            writer.number(level)
            writer.beginObject()
            writer.key("k")
            expected += "[\(level),{\"k\":"
        }
        writer.null()
        expected += "null"
        for level in (0..<depth).reversed() {
            writer.endObject()
            writer.number(level)
            writer.endArray()
            expected += "},\(level)]"
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test("Parser keeps numbers exact, object order, and reads every escape")
    func parser() throws {
        let value = try JSONValue.parse(#"{"b":1,"a":[12345678901234567890, -0.5e-3, "\u00e9\ud83d\ude00\/"],"c":{}}"#)
        #expect(value.objectValue?.keys == ["b", "a", "c"])
        #expect(value["a"]?.arrayValue?[0] == .number("12345678901234567890"))
        #expect(value["a"]?.arrayValue?[1] == .number("-0.5e-3"))
        #expect(value["a"]?.arrayValue?[2].stringValue == "é😀/")
    }

    @Test("A member name given twice is refused by the parser, in small and large objects and nested ones")
    func repeatedNamesRefused() throws {
        for text in [#"{"a":1,"b":{"x":true,"x":false},"c":3}"#, #"{"a":1,"b":2,"a":2}"#] {
            #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        }
        // Past 16 members the check uses a set; nested objects share the parser's member stack.
        let names = (0..<20).map { "k\($0)" }
        let members = names.map { #""\#($0)":{"inner":"\#($0)"}"# }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("{" + (members + [#""k3":"again""#]).joined(separator: ",") + "}") }
        let distinct = try JSONValue.parse("{" + (members + [#""last":[{"k0":0}]"#]).joined(separator: ",") + "}")
        let object = try #require(distinct.objectValue)
        #expect(object.keys == names + ["last"])
        #expect(distinct["k19"]?["inner"] == .string("k19"))
        #expect(distinct["last"]?.arrayValue?.first?["k0"] == .number("0"))
        #expect(JSONObject(object.entries) == object)
    }

    @Test("An object built in code with a repeated name keeps its first position and its last value")
    func repeatedNamesInCode() {
        let small = JSONObject([(key: "a", value: .number("1")), (key: "b", value: .null), (key: "a", value: .number("2"))])
        #expect(small.keys == ["a", "b"] && small["a"] == .number("2"))
        var entries = (0..<20).map { (key: "k\($0)", value: JSONValue.number(String($0))) }
        entries.append((key: "k3", value: .string("again")))
        let large = JSONObject(entries)
        #expect(large.count == 20 && large["k3"] == .string("again"))
    }

    @Test("Malformed documents are refused with the offset, never a crash")
    func malformed() throws {
        let cases = ["", "{", "[1,]", #"{"a" 1}"#, "01", "1.", "-", "\"\u{1}\"", #""\ud800""#, "tru", "[1] 2", #"{"a":1,}"#, "\u{FF}"]
        for text in cases {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        }
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        // Strings of bytes that are not UTF-8 (a lone continuation byte, a truncated sequence, an
        // overlong form), with and without escapes before them.
        for invalid: [UInt8] in [[0x80], [0xC3], [0xC0, 0xAF], [0x61, 0xE2, 0x82]] {
            for prefix in [Array("a".utf8), Array(#"\n"#.utf8)] {
                let document = [UInt8(ascii: "\"")] + prefix + invalid + [UInt8(ascii: "\"")]
                #expect(throws: JSONParseError.self, "\(document)") { try JSONValue.parse(document) }
            }
        }
        #expect(try JSONValue.parse(Array(#""añb\u00e9""#.utf8)) == .string("añbé"))
    }
}

@Suite("Values on the wire")
struct ValueEncodingTests {
    @Test("Verbose JSON forms of every type, and back")
    func verboseJSON() throws {
        let cases: [(ODataValue, String, EDMPrimitiveType)] = [
            (.int32(1), "1", .int32), (.int64(9_000_000_000), #""9000000000""#, .int64), (.decimal(Decimal(string: "12.50")!), #""12.5""#, .decimal),
            (.double(1.5), "1.5", .double), (.double(.infinity), #""INF""#, .double), (.boolean(true), "true", .boolean),
            (.string("a\"b"), #""a\"b""#, .string), (.dateTime(ODataDateTime(millisecondsSince1970: 1_257_008_908_440)), #""\/Date(1257008908440)\/""#, .dateTime),
            (.time(ODataTime(hour: 13, minute: 20)!), #""PT13H20M""#, .time), (.binary(Data([0x0A, 0x1B])), #""Chs=""#, .binary),
            (.guid(UUID(uuidString: "AAAAAAAA-0000-0000-0000-000000000001")!), #""aaaaaaaa-0000-0000-0000-000000000001""#, .guid),
        ]
        for (value, json, type) in cases {
            var writer = JSONWriter()
            ODataJSON.write(value, to: &writer)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == json, "\(value)")
            #expect(try ODataJSON.decode(JSONValue.parse(json), as: type) == value, "\(json)")
        }
        // Clients send dates in either form, and Int64 as numbers too.
        #expect(try ODataJSON.decode(.string("2009-10-31T17:08:28.44"), as: .dateTime) == .dateTime(ODataDateTime(millisecondsSince1970: 1_257_008_908_440)))
        #expect(try ODataJSON.decode(.string("/Date(1257008908440+0120)/"), as: .dateTime) == .dateTime(ODataDateTime(millisecondsSince1970: 1_257_008_908_440)))
        #expect(try ODataJSON.decode(.number("9000000000"), as: .int64) == .int64(9_000_000_000))
        #expect(throws: ODataLiteralError.self) { try ODataJSON.decode(.number("3000000000"), as: .int32) }
        #expect(throws: ODataLiteralError.self) { try ODataJSON.decode(.string("yesterday"), as: .dateTime) }
    }

    @Test("Date-times keep microseconds and format so that text order is time order")
    func dateTimes() throws {
        let instant = try #require(ODataDateTime.parse("2010-06-15T12:30:45.123456"))
        #expect(instant.microsecondsSince1970 == 1_276_605_045_123_456)
        #expect(instant.formatted(dateTimeSeparator: " ", alwaysFraction: true) == "2010-06-15 12:30:45.123456")
        #expect(ODataDateTime(millisecondsSince1970: 0).formatted(dateTimeSeparator: " ", alwaysFraction: true) == "1970-01-01 00:00:00.000")
        #expect(ODataDateTime(microsecondsSince1970: -1).components.year == 1969)
        #expect(ODataDateTimeOffset.parse("2009-11-01T02:00:00+02:00")?.utc == ODataDateTime.parse("2009-11-01T00:00:00Z"))
        #expect(ODataDateTime.parse("2009-02-29T00:00") == nil)
        #expect(ODataDateTime.parse("2009-11-01T25:00") == nil)
        let ordered = ["1999-12-31T23:59:59.999", "2000-01-01T00:00:00", "2000-01-01T00:00:00.000001", "2000-01-01T00:00:00.5"]
            .compactMap { ODataDateTime.parse($0)?.formatted(dateTimeSeparator: " ", alwaysFraction: true) }
        #expect(ordered == ordered.sorted())
    }

    @Test("Formatting writes each calendar field at its width, the fraction as milliseconds or microseconds, over the whole range")
    func dateTimeFormattingOverTheRange() throws {
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<2_000).map { _ in Int64.random(in: ODataDateTime.supportedRange, using: &generator) }
            + [ODataDateTime.supportedRange.lowerBound, ODataDateTime.supportedRange.upperBound, 0, -1, 1_000, 86_400_000_000]
        for micros in samples {
            let instant = ODataDateTime(microsecondsSince1970: micros)
            let c = instant.components
            func digits(_ value: Int, _ width: Int) -> String {
                String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
            }
            let whole = "\(digits(c.year, 4))-\(digits(c.month, 2))-\(digits(c.day, 2))T\(digits(c.hour, 2)):\(digits(c.minute, 2)):\(digits(c.second, 2))"
            let fraction = c.microsecond % 1000 == 0 ? "." + digits(c.microsecond / 1000, 3) : "." + digits(c.microsecond, 6)
            #expect(instant.formatted(dateTimeSeparator: "T", alwaysFraction: true) == whole + fraction)
            #expect(instant.isoString == whole + (c.microsecond == 0 ? "" : fraction))
            #expect(ODataDateTime.parse(instant.isoString) == instant, "\(instant.isoString) reads back")
        }
        // Outside the supported years the text still carries the year whole.
        #expect(ODataDateTime(microsecondsSince1970: ODataDateTime.supportedRange.upperBound + 86_400_000_000).isoString.hasPrefix("10000-01-01"))
    }
}
