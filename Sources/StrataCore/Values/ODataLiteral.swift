import Foundation

/// OData V2 URI literals: the text form of values in keys (`Person(1)`) and in `$filter`.
public enum ODataLiteral {
    /// Formats a value as its canonical URI literal, for example `123L`, `'O''Brien'`, `guid'…'`.
    public static func format(_ value: ODataValue) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .byte(let v): return String(v)
        case .sbyte(let v): return String(v)
        case .int16(let v): return String(v)
        case .int32(let v): return String(v)
        case .int64(let v): return "\(v)L"
        case .decimal(let v): return "\(v)M"
        case .double(let v): return formatFloating(v) + "d"
        case .single(let v): return formatFloating(Double(v)) + "f"
        case .string(let s): return "'" + doublingQuotes(s) + "'"
        case .dateTime(let d): return "datetime'\(d.isoString)'"
        case .dateTimeOffset(let d): return "datetimeoffset'\(d.isoString)'"
        case .time(let t): return "time'\(t.durationString)'"
        case .guid(let g): return "guid'\(g.uuidString.lowercased())'"
        case .binary(let data): return "X'" + data.map { hexByte($0) }.joined() + "'"
        }
    }

    /// Doubles every quote, working on Unicode scalars: as Characters, a quote followed by a combining
    /// mark is one grapheme that is not equal to "'" and would escape undoubled.
    static func doublingQuotes(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            out.append(scalar)
            if scalar == "'" { out.append(scalar) }
        }
        return String(out)
    }

    static func formatFloating(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v < 0 ? "-INF" : "INF" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) + ".0" }
        return String(v).uppercased()
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// Parses a complete URI literal. Unsuffixed integers become `Int32` (or `Int64` when too large),
    /// unsuffixed numbers with a fraction or exponent become `Decimal` or `Double`.
    public static func parse(_ text: some StringProtocol) throws(ODataLiteralError) -> ODataValue {
        if let number = shortInteger(text.utf8) { return .int32(number) }
        let s = String(text)
        guard !s.isEmpty else { throw .init("an empty value is not a literal") }
        switch s {
        case "null": return .null
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        default: break
        }
        // Quotes are found among Unicode scalars, not Characters, for the reason given at doublingQuotes.
        let scalars = s.unicodeScalars
        if scalars.first == "'" { return .string(try unquote(s)) }
        if let quote = scalars.firstIndex(of: "'"), scalars.last == "'" {
            let prefix = String(scalars[..<quote]).lowercased()
            let body = try unquote(String(scalars[quote...]))
            return try parsePrefixed(prefix: prefix, body: body, literal: s)
        }
        return try parseNumber(s)
    }

    /// Removes the quotes of `'…'` and turns doubled quotes back into one.
    static func unquote(_ s: String) throws(ODataLiteralError) -> String {
        let scalars = s.unicodeScalars
        guard scalars.count >= 2, scalars.first == "'", scalars.last == "'" else {
            throw .init("the string \(s) is not closed with a quote")
        }
        var result = String.UnicodeScalarView()
        var iterator = scalars.dropFirst().dropLast().makeIterator()
        while let c = iterator.next() {
            if c == "'" {
                guard iterator.next() == "'" else {
                    throw .init("a quote inside the string \(s) must be doubled ('')")
                }
            }
            result.append(c)
        }
        return String(result)
    }

    static func parsePrefixed(prefix: String, body: String, literal: String) throws(ODataLiteralError) -> ODataValue {
        switch prefix {
        case "datetime":
            guard let value = ODataDateTime.parse(body) else {
                throw .init("\(literal) is not a valid datetime; write datetime'2009-11-01T00:00' or datetime'2009-11-01T00:00:00.123'")
            }
            return .dateTime(value)
        case "datetimeoffset":
            guard let value = ODataDateTimeOffset.parse(body) else {
                throw .init("\(literal) is not a valid datetimeoffset; write datetimeoffset'2009-11-01T00:00:00+02:00'")
            }
            return .dateTimeOffset(value)
        case "time":
            guard let value = ODataTime.parse(body) else {
                throw .init("\(literal) is not a valid time; write time'PT13H20M' or time'13:20:00'")
            }
            return .time(value)
        case "guid":
            guard let value = UUID(uuidString: body) else {
                throw .init("\(literal) is not a valid guid; write guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'")
            }
            return .guid(value)
        case "x", "binary":
            guard let data = hexData(body) else {
                throw .init("\(literal) is not valid binary; write X'0A1B' with an even number of hex digits")
            }
            return .binary(data)
        default:
            throw .init("unknown literal prefix '\(prefix)' in \(literal)")
        }
    }

    static func hexData(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        var data = Data(capacity: bytes.count / 2)
        var i = 0
        while i < bytes.count {
            guard let hi = hexValue(bytes[i]), let lo = hexValue(bytes[i + 1]) else { return nil }
            data.append(hi << 4 | lo)
            i += 2
        }
        return data
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }

    static func parseNumber(_ s: String) throws(ODataLiteralError) -> ODataValue {
        switch s {
        case "NaN", "NaNd", "NaND": return .double(.nan)
        case "INF", "INFd", "INFD": return .double(.infinity)
        case "-INF", "-INFd", "-INFD": return .double(-.infinity)
        case "NaNf", "NaNF": return .single(.nan)
        case "INFf", "INFF": return .single(.infinity)
        case "-INFf", "-INFF": return .single(-.infinity)
        default: break
        }
        guard let last = s.last else { throw .init("an empty value is not a literal") }
        let body = String(s.dropLast())
        switch last {
        case "L", "l":
            guard isInteger(body), let v = Int64(body) else {
                throw .init("\(s) is not a valid Int64; write digits followed by L, for example 42L")
            }
            return .int64(v)
        case "M", "m":
            guard isDecimal(body), let v = Decimal(string: body, locale: Locale(identifier: "en_US_POSIX")) else {
                throw .init("\(s) is not a valid decimal; write for example 1.5M")
            }
            return .decimal(v)
        case "D", "d":
            guard isFloating(body), let v = Double(body) else {
                throw .init("\(s) is not a valid double; write for example 1.5d or 1.5E+10d")
            }
            return .double(v)
        case "F", "f":
            guard isFloating(body), let v = Float(body) else {
                throw .init("\(s) is not a valid single; write for example 1.5f")
            }
            return .single(v)
        default:
            break
        }
        if isInteger(s) {
            if let v = Int32(s) { return .int32(v) }
            if let v = Int64(s) { return .int64(v) }
            if let v = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(v) }
        }
        if isDecimal(s), let v = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(v) }
        if isFloating(s), let v = Double(s) { return .double(v) }
        throw .init("\(s) is not a value; strings need quotes ('\(s)'), other literals look like 42, 1.5M, true, null, datetime'2009-11-01T00:00'")
    }

    /// An unsuffixed integer of at most nine digits (`42`, `-7`, `+3`), which always fits `Int32`:
    /// what ``parseNumber(_:)`` makes of it, read straight from the bytes.
    static func shortInteger(_ bytes: some Collection<UInt8>) -> Int32? {
        var iterator = bytes.makeIterator()
        guard var byte = iterator.next() else { return nil }
        var negative = false
        if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
            negative = byte == UInt8(ascii: "-")
            guard let next = iterator.next() else { return nil }
            byte = next
        }
        var value: Int32 = 0
        var digits = 0
        while true {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 9 else { return nil }
            value = value * 10 + Int32(byte - UInt8(ascii: "0"))
            digits += 1
            guard let next = iterator.next() else { break }
            byte = next
        }
        return negative ? -value : value
    }

    /// `[-]digits`
    static func isInteger(_ s: String) -> Bool {
        let digits = s.hasPrefix("-") || s.hasPrefix("+") ? s.dropFirst() : Substring(s)
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// `[-]digits[.digits]`
    static func isDecimal(_ s: String) -> Bool {
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard isInteger(String(parts[0])) else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// `[-]digits[.digits][E[+|-]digits]`
    static func isFloating(_ s: String) -> Bool {
        let upper = s.uppercased()
        let parts = upper.split(separator: "E", maxSplits: 1, omittingEmptySubsequences: false)
        guard isDecimal(String(parts[0])) else { return false }
        guard parts.count == 2 else { return true }
        return isInteger(String(parts[1]))
    }
}

/// A literal that could not be read; the message says what is wrong and how to write it.
public struct ODataLiteralError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
