import Foundation

/// How OData V2 verbose JSON writes and reads primitive values.
///
/// Int64 and Decimal travel as strings (JavaScript numbers would lose digits), DateTime as `\/Date(ms)\/`,
/// DateTimeOffset as ISO 8601 with offset, Time as an XML duration, Binary as base64, and the
/// non-finite doubles as the strings `NaN`, `INF`, `-INF`.
public enum ODataJSON {
    public static func write(_ value: ODataValue, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case .boolean(let b): writer.bool(b)
        case .byte(let v): writer.raw(String(v))
        case .sbyte(let v): writer.raw(String(v))
        case .int16(let v): writer.raw(String(v))
        case .int32(let v): writer.raw(String(v))
        case .int64(let v): writer.rawString(String(v))
        case .decimal(let v): writer.rawString(v.description)
        case .double(let v): writeFloating(v, to: &writer)
        case .single(let v): writeFloating(Double(v), to: &writer, single: true)
        case .string(let s): writer.string(s)
        case .dateTime(let d): writer.rawString("\\/Date(\(d.millisecondsSince1970))\\/")
        case .dateTimeOffset(let d): writer.rawString(d.isoString)
        case .time(let t): writer.rawString(t.durationString)
        case .guid(let g): writer.rawString(g.uuidString.lowercased())
        case .binary(let data): writer.rawString(data.base64EncodedString())
        }
    }

    private static func writeFloating(_ v: Double, to writer: inout JSONWriter, single: Bool = false) {
        if v.isNaN { writer.rawString("NaN"); return }
        if v.isInfinite { writer.rawString(v < 0 ? "-INF" : "INF"); return }
        if single {
            writer.raw(String(Float(v)))
        } else {
            writer.raw(String(v))
        }
    }

    /// Reads a JSON value as the given EDM type, accepting every form OData clients send:
    /// numbers or strings for Int64/Decimal, `\/Date(ms)\/` or ISO 8601 for dates.
    public static func decode(_ json: JSONValue, as type: EDMPrimitiveType) throws(ODataLiteralError) -> ODataValue {
        if case .null = json { return .null }
        switch type {
        case .boolean:
            if case .bool(let b) = json { return .boolean(b) }
            if case .string(let s) = json, s == "true" || s == "false" { return .boolean(s == "true") }
            throw mismatch(json, type, "true or false")
        case .byte, .sbyte, .int16, .int32, .int64:
            return try decodeInteger(json, type)
        case .decimal:
            guard let text = numericText(json), ODataLiteral.isFloating(text),
                  let v = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(json, type, "a number or a string holding one, such as \"12.50\"")
            }
            return .decimal(v)
        case .double, .single:
            let v: Double
            switch json {
            case .number(let text): v = Double(text) ?? .nan
            case .string("NaN"): v = .nan
            case .string("INF"): v = .infinity
            case .string("-INF"): v = -.infinity
            case .string(let text) where ODataLiteral.isFloating(text): v = Double(text) ?? .nan
            default: throw mismatch(json, type, "a number")
            }
            if type == .single {
                let f = Float(v)
                if f.isInfinite && !v.isInfinite { throw ODataLiteralError("\(v) is out of range for Edm.Single") }
                return .single(f)
            }
            return .double(v)
        case .string:
            if case .string(let s) = json { return .string(s) }
            throw mismatch(json, type, "a string")
        case .dateTime:
            guard case .string(let s) = json, let value = parseDateTime(s) else {
                throw mismatch(json, type, "\"\\/Date(1257008908440)\\/\" or \"2009-10-31T17:08:28.440\"")
            }
            try requireSupported(value, s)
            return .dateTime(value)
        case .dateTimeOffset:
            guard case .string(let s) = json else { throw mismatch(json, type, "\"2009-11-01T00:00:00+02:00\"") }
            if let value = ODataDateTimeOffset.parse(s) {
                try requireSupported(value.utc, s)
                return .dateTimeOffset(value)
            }
            if let (instant, offset) = parseDateLiteral(s) {
                try requireSupported(instant, s)
                return .dateTimeOffset(ODataDateTimeOffset(utc: instant, offsetMinutes: offset))
            }
            throw mismatch(json, type, "\"2009-11-01T00:00:00+02:00\"")
        case .time:
            guard case .string(let s) = json, let value = ODataTime.parse(s) else {
                throw mismatch(json, type, "\"PT13H20M\" or \"13:20:00\"")
            }
            return .time(value)
        case .guid:
            guard case .string(let s) = json, let value = UUID(uuidString: s) else {
                throw mismatch(json, type, "a string such as \"12345678-aaaa-bbbb-cccc-ddddeeeeffff\"")
            }
            return .guid(value)
        case .binary:
            // Base64 as V2 writes it, or base64url as V4 does.
            guard case .string(let s) = json, let data = Data(base64Encoded: s) ?? Base64URL.decode(s).map({ Data($0) }) else {
                throw mismatch(json, type, "a base64 string")
            }
            return .binary(data)
        }
    }

    private static func numericText(_ json: JSONValue) -> String? {
        switch json {
        case .number(let text): return text
        case .string(let text): return text
        default: return nil
        }
    }

    private static func decodeInteger(_ json: JSONValue, _ type: EDMPrimitiveType) throws(ODataLiteralError) -> ODataValue {
        guard let text = numericText(json) else { throw mismatch(json, type, "an integer") }
        guard ODataLiteral.isInteger(text), let wide = Int64(text) else {
            if ODataLiteral.isFloating(text) { throw ODataLiteralError("\(text) is not an integer, as \(type.rawValue) requires") }
            throw mismatch(json, type, "an integer")
        }
        func outOfRange() -> ODataLiteralError { ODataLiteralError("\(text) is out of range for \(type.rawValue)") }
        switch type {
        case .byte: guard let v = UInt8(exactly: wide) else { throw outOfRange() }; return .byte(v)
        case .sbyte: guard let v = Int8(exactly: wide) else { throw outOfRange() }; return .sbyte(v)
        case .int16: guard let v = Int16(exactly: wide) else { throw outOfRange() }; return .int16(v)
        case .int32: guard let v = Int32(exactly: wide) else { throw outOfRange() }; return .int32(v)
        default: return .int64(wide)
        }
    }

    /// `\/Date(ms)\/`, `/Date(ms)/`, `/Date(ms+0120)/` (offset applied) or ISO 8601.
    public static func parseDateTime(_ s: String) -> ODataDateTime? {
        if let (instant, _) = parseDateLiteral(s) { return instant }
        return ODataDateTime.parse(s)
    }

    /// Parses `/Date(ms[+|-]hhmm)/` into the UTC instant and the offset in minutes. A backslash may
    /// precede either slash (`\/Date(…)\/`, as JSON-escaped by some servers).
    ///
    /// Works on UTF-8 bytes: clients decode one of these per DateTime value of every row, and
    /// `Character`-wise prefix and suffix checks cost more than the rest of decoding the row.
    static func parseDateLiteral(_ literal: String) -> (ODataDateTime, Int)? {
        var literal = literal
        return literal.withUTF8 { bytes -> (ODataDateTime, Int)? in
            let backslash = UInt8(ascii: "\\"), slash = UInt8(ascii: "/"), close = UInt8(ascii: ")")
            var index = bytes.startIndex, end = bytes.endIndex
            if end - index >= 2, bytes[index] == backslash, bytes[index + 1] == slash { index += 1 }
            let opening: StaticString = "/Date("
            guard end - index >= opening.utf8CodeUnitCount,
                  opening.withUTF8Buffer({ expected in expected.indices.allSatisfy { bytes[index + $0] == expected[$0] } }) else {
                return nil
            }
            index += opening.utf8CodeUnitCount
            if end - index >= 3, bytes[end - 3] == close, bytes[end - 2] == backslash, bytes[end - 1] == slash {
                end -= 3
            } else if end - index >= 2, bytes[end - 2] == close, bytes[end - 1] == slash {
                end -= 2
            } else {
                return nil
            }
            func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
            var negative = false
            if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                negative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            // At most what ODataDateTime holds in microseconds (about 292,000 years either way).
            let limit = Int64.max / 1000
            let digitsStart = index
            var magnitude: Int64 = 0
            while index < end, isDigit(bytes[index]) {
                magnitude = magnitude * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                guard magnitude <= limit else { return nil }
                index += 1
            }
            guard index > digitsStart else { return nil }
            let milliseconds = negative ? -magnitude : magnitude
            var offset = 0
            if index < end {
                // An offset: a sign and exactly four digits, hhmm.
                guard end - index == 5, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                      (index + 1..<end).allSatisfy({ isDigit(bytes[$0]) }) else { return nil }
                let raw = (index + 1..<end).reduce(0) { $0 * 10 + Int(bytes[$1] - UInt8(ascii: "0")) }
                offset = (raw / 100) * 60 + raw % 100
                if bytes[index] == UInt8(ascii: "-") { offset = -offset }
            }
            // The ticks are UTC milliseconds; the offset only says how the instant was expressed.
            return (ODataDateTime(millisecondsSince1970: milliseconds), offset)
        }
    }

    private static func requireSupported(_ value: ODataDateTime, _ text: String) throws(ODataLiteralError) {
        guard value.isSupported else {
            throw ODataLiteralError("\(text.prefix(40)) is outside the dates Edm.DateTime holds (years 1 to 9999, /Date(-62135596800000)/ to /Date(253402300799999)/)")
        }
    }

    private static func mismatch(_ json: JSONValue, _ type: EDMPrimitiveType, _ expected: String) -> ODataLiteralError {
        let shown: String
        switch json {
        case .string(let s): shown = "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .number(let n): shown = "the number \(n)"
        case .bool(let b): shown = "\(b)"
        case .array: shown = "an array"
        case .object: shown = "an object"
        case .null: shown = "null"
        }
        return ODataLiteralError("\(shown) is not a valid \(type.rawValue); expected \(expected)")
    }
}
