import Foundation

/// An `Edm.DateTime`: a date and time without offset, understood as UTC, with microsecond precision.
///
/// Microseconds (not `Date`'s floating point seconds) keep PostgreSQL timestamps exact through a round trip.
public struct ODataDateTime: Sendable, Hashable, Comparable {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microsecondsSince1970: Int64

    public init(microsecondsSince1970: Int64) {
        self.microsecondsSince1970 = microsecondsSince1970
    }

    public init(millisecondsSince1970: Int64) {
        self.microsecondsSince1970 = millisecondsSince1970 * 1000
    }

    public init(_ date: Date) {
        self.microsecondsSince1970 = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// Builds a value from calendar fields in UTC; nil when a field is out of range.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0..<1_000_000).contains(microsecond),
              day <= CivilCalendar.daysInMonth(year: year, month: month)
        else { return nil }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.microsecondsSince1970 = seconds * 1_000_000 + Int64(microsecond)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(microsecondsSince1970) / 1_000_000) }

    /// The instants an `Edm.DateTime` may hold: years 1 to 9999, as .NET's `DateTime` (whose range
    /// OData V2 took) and ISO 8601 text can write them. Both databases store this range, so a value
    /// outside it is refused before it reaches either.
    public static let supportedRange: ClosedRange<Int64> = -62_135_596_800_000_000...253_402_300_799_999_999

    /// Whether the value lies in ``supportedRange``.
    public var isSupported: Bool { Self.supportedRange.contains(microsecondsSince1970) }

    /// Milliseconds since the epoch, rounded toward negative infinity, as `/Date(ms)/` carries them.
    public var millisecondsSince1970: Int64 {
        microsecondsSince1970 >= 0 ? microsecondsSince1970 / 1000 : -((-microsecondsSince1970 + 999) / 1000)
    }

    /// Calendar fields in UTC.
    public var components: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, microsecond: Int) {
        let micros = microsecondsSince1970
        let perDay: Int64 = 86_400_000_000
        var days = micros / perDay
        var rest = micros % perDay
        if rest < 0 { rest += perDay; days -= 1 }
        let (y, m, d) = CivilCalendar.civilFromDays(days)
        let secondsOfDay = Int(rest / 1_000_000)
        return (y, m, d, secondsOfDay / 3600, (secondsOfDay / 60) % 60, secondsOfDay % 60, Int(rest % 1_000_000))
    }

    /// ISO 8601 without offset: `2009-11-01T00:00:00`, with a fraction only when there is one.
    public var isoString: String { formatted(dateTimeSeparator: "T") }

    /// Formats as `yyyy-MM-dd{sep}HH:mm:ss[.fff[fff]]`: three fraction digits for whole milliseconds, six otherwise.
    /// Equal instants always format alike and the text sorts like the instants, so it can be stored as text.
    public func formatted(dateTimeSeparator: Character, alwaysFraction: Bool = false) -> String {
        let c = components
        // Every row of a streamed table formats its dates here (the server writing, the offline
        // replica storing): ASCII digits straight into the string's storage, no interpolation.
        if (0...9999).contains(c.year), let separator = dateTimeSeparator.asciiValue {
            let fraction = c.microsecond != 0 || alwaysFraction
            let milliseconds = c.microsecond % 1000 == 0
            let length = 19 + (fraction ? (milliseconds ? 4 : 7) : 0)
            return String(unsafeUninitializedCapacity: length) { buffer in
                func put(_ value: Int, _ width: Int, at end: Int) {
                    var value = value
                    for index in stride(from: end - 1, through: end - width, by: -1) {
                        buffer[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                        value /= 10
                    }
                }
                put(c.year, 4, at: 4)
                buffer[4] = UInt8(ascii: "-")
                put(c.month, 2, at: 7)
                buffer[7] = UInt8(ascii: "-")
                put(c.day, 2, at: 10)
                buffer[10] = separator
                put(c.hour, 2, at: 13)
                buffer[13] = UInt8(ascii: ":")
                put(c.minute, 2, at: 16)
                buffer[16] = UInt8(ascii: ":")
                put(c.second, 2, at: 19)
                if fraction {
                    buffer[19] = UInt8(ascii: ".")
                    if milliseconds { put(c.microsecond / 1000, 3, at: 23) } else { put(c.microsecond, 6, at: 26) }
                }
                return length
            }
        }
        var text = "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))\(dateTimeSeparator)\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
        if c.microsecond != 0 || alwaysFraction {
            text += c.microsecond % 1000 == 0 ? ".\(pad(c.microsecond / 1000, 3))" : ".\(pad(c.microsecond, 6))"
        }
        return text
    }

    public static func < (lhs: ODataDateTime, rhs: ODataDateTime) -> Bool {
        lhs.microsecondsSince1970 < rhs.microsecondsSince1970
    }

    /// Parses ISO 8601 date-times: `2009-11-01`, `2009-11-01T00:00`, `2009-11-01T00:00:00.123`,
    /// also with a space instead of `T` and with a trailing `Z` or offset (which is applied).
    public static func parse(_ text: some StringProtocol) -> ODataDateTime? {
        if let plain = parsePlain(text) { return plain }
        guard let parsed = ISODateTimeParser.parse(String(text)) else { return nil }
        guard let base = ODataDateTime(year: parsed.year, month: parsed.month, day: parsed.day, hour: parsed.hour,
                                       minute: parsed.minute, second: parsed.second, microsecond: parsed.microsecond)
        else { return nil }
        let offset = Int64(parsed.offsetMinutes ?? 0) * 60_000_000
        return ODataDateTime(microsecondsSince1970: base.microsecondsSince1970 - offset)
    }
}

extension ODataDateTime {
    /// `YYYY-MM-DD HH:MM:SS[.ffffff]` (or with `T`), without a zone: the form SQLite columns hold,
    /// read once per row of a streamed collection. Nil for anything else, which the full parser reads.
    static func parsePlain(_ text: some StringProtocol) -> ODataDateTime? {
        var text = String(text)
        return text.withUTF8 { utf8 -> ODataDateTime? in
            guard utf8.count >= 19, utf8.count <= 26, utf8.count != 20,
                  utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
                  utf8[10] == UInt8(ascii: " ") || utf8[10] == UInt8(ascii: "T"),
                  utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":") else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let digit = Int(utf8[index]) - 48
                    guard digit >= 0, digit <= 9 else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                  let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
            var microsecond = 0
            if utf8.count > 19 {
                guard utf8[19] == UInt8(ascii: "."), let fraction = number(20..<utf8.count) else { return nil }
                microsecond = fraction
                for _ in 0..<(26 - utf8.count) { microsecond *= 10 }
            }
            return ODataDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                 microsecond: microsecond)
        }
    }
}

/// An `Edm.DateTimeOffset`: an instant together with the UTC offset it was expressed in.
public struct ODataDateTimeOffset: Sendable, Hashable {
    /// The instant, in UTC.
    public var utc: ODataDateTime
    /// Minutes east of UTC.
    public var offsetMinutes: Int

    public init(utc: ODataDateTime, offsetMinutes: Int = 0) {
        self.utc = utc
        self.offsetMinutes = offsetMinutes
    }

    /// ISO 8601 with offset: `2009-11-01T02:00:00+02:00`, `Z` for UTC.
    public var isoString: String {
        let local = ODataDateTime(microsecondsSince1970: utc.microsecondsSince1970 + Int64(offsetMinutes) * 60_000_000)
        guard offsetMinutes != 0 else { return local.isoString + "Z" }
        let sign = offsetMinutes < 0 ? "-" : "+"
        let magnitude = abs(offsetMinutes)
        return local.isoString + "\(sign)\(pad(magnitude / 60, 2)):\(pad(magnitude % 60, 2))"
    }

    /// Parses ISO 8601 with an optional offset (none means UTC).
    public static func parse(_ text: some StringProtocol) -> ODataDateTimeOffset? {
        guard let parsed = ISODateTimeParser.parse(String(text)),
              let local = ODataDateTime(year: parsed.year, month: parsed.month, day: parsed.day, hour: parsed.hour,
                                        minute: parsed.minute, second: parsed.second, microsecond: parsed.microsecond)
        else { return nil }
        let offset = parsed.offsetMinutes ?? 0
        return ODataDateTimeOffset(
            utc: ODataDateTime(microsecondsSince1970: local.microsecondsSince1970 - Int64(offset) * 60_000_000),
            offsetMinutes: offset)
    }
}

/// An `Edm.Time`: a time of day (OData V2 writes it as an XML duration, `PT13H20M`).
public struct ODataTime: Sendable, Hashable, Comparable {
    /// Microseconds since midnight, 0 ..< 86 400 000 000.
    public var microseconds: Int64

    public init?(microseconds: Int64) {
        guard (0..<86_400_000_000).contains(microseconds) else { return nil }
        self.microseconds = microseconds
    }

    public init?(hour: Int, minute: Int, second: Int = 0, microsecond: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0..<1_000_000).contains(microsecond) else { return nil }
        self.microseconds = Int64(hour * 3600 + minute * 60 + second) * 1_000_000 + Int64(microsecond)
    }

    public var hour: Int { Int(microseconds / 3_600_000_000) }
    public var minute: Int { Int(microseconds / 60_000_000 % 60) }
    public var second: Int { Int(microseconds / 1_000_000 % 60) }
    public var microsecond: Int { Int(microseconds % 1_000_000) }

    /// `PT13H20M5.5S`, as OData V2 serializes `Edm.Time`.
    public var durationString: String {
        var text = "PT\(hour)H\(minute)M"
        if second != 0 || microsecond != 0 {
            text += "\(second)"
            if microsecond != 0 {
                var fraction = pad(microsecond, 6)
                while fraction.hasSuffix("0") { fraction.removeLast() }
                text += ".\(fraction)"
            }
            text += "S"
        }
        return text
    }

    /// `13:20:05.5`, as SQL databases write a time.
    public var clockString: String {
        var text = "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if microsecond != 0 { text += ".\(pad(microsecond, 6))" }
        return text
    }

    public static func < (lhs: ODataTime, rhs: ODataTime) -> Bool { lhs.microseconds < rhs.microseconds }

    /// Parses an XML duration of at most a day (`PT13H20M`, `P0DT1H`) or a clock time (`13:20`, `13:20:05.25`).
    public static func parse(_ text: some StringProtocol) -> ODataTime? {
        let s = String(text)
        if s.hasPrefix("P") || s.hasPrefix("-P") { return parseDuration(s) }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              let h = Int(parts[0]), let m = Int(parts[1]), parts[0].count <= 2, parts[1].count == 2 else { return nil }
        var seconds = 0, micros = 0
        if parts.count == 3 {
            guard let (sec, frac) = parseSecondsField(parts[2]) else { return nil }
            seconds = sec
            micros = frac
        }
        return ODataTime(hour: h, minute: m, second: seconds, microsecond: micros)
    }

    private static func parseDuration(_ s: String) -> ODataTime? {
        guard s.hasPrefix("P") else { return nil }
        var rest = Substring(s.dropFirst())
        var total: Int64 = 0
        var inTime = false
        var sawField = false
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest = rest.dropFirst()
                continue
            }
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let unit = rest.dropFirst(number.count).first else { return nil }
            rest = rest.dropFirst(number.count + 1)
            sawField = true
            // Fields are never negative, so one larger than a day in its unit already puts the time out of
            // range; refusing it early also keeps the multiplications below from overflowing.
            switch (unit, inTime) {
            case ("D", false):
                guard let d = Int64(number), d <= 1 else { return nil }
                total += d * 86_400_000_000
            case ("H", true):
                guard let h = Int64(number), h <= 24 else { return nil }
                total += h * 3_600_000_000
            case ("M", true):
                guard let m = Int64(number), m <= 1440 else { return nil }
                total += m * 60_000_000
            case ("S", true):
                guard let (sec, frac) = parseSecondsField(number), sec <= 86_400 else { return nil }
                total += Int64(sec) * 1_000_000 + Int64(frac)
            default:
                return nil
            }
        }
        guard sawField else { return nil }
        return ODataTime(microseconds: total)
    }
}

/// Parses `SS` or `SS.fffffff` into whole seconds and microseconds (extra digits are truncated).
func parseSecondsField(_ text: Substring) -> (Int, Int)? {
    let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = Int(pieces[0]), !pieces[0].isEmpty, pieces[0].allSatisfy(\.isASCII) else { return nil }
    var micros = 0
    if pieces.count == 2 {
        let digits = pieces[1]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let six = String(digits.prefix(6)).padding(toLength: 6, withPad: "0", startingAt: 0)
        micros = Int(six) ?? 0
    }
    return (whole, micros)
}

func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// Proleptic Gregorian calendar arithmetic (Howard Hinnant's algorithms), independent of Foundation's
/// calendars so that formatting is fast and identical on every platform.
enum CivilCalendar {
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// The fields of an ISO 8601 date-time, before they are validated as a calendar date.
struct ISODateTimeParser {
    var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, microsecond = 0
    var offsetMinutes: Int?

    static func parse(_ text: String) -> ISODateTimeParser? {
        var result = ISODateTimeParser()
        let chars = Array(text.utf8)
        var i = 0
        func number(_ width: Int) -> Int? {
            guard i + width <= chars.count else { return nil }
            var value = 0
            for j in i..<(i + width) {
                let c = chars[j]
                guard c >= 48 && c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            i += width
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = number(4), expect(45), let mo = number(2), expect(45), let d = number(2) else { return nil }
        result.year = y; result.month = mo; result.day = d
        if i == chars.count { return result }
        guard expect(84) || expect(32) || expect(116) else { return nil } // 'T', ' ', 't'
        guard let h = number(2), expect(58), let mi = number(2) else { return nil }
        result.hour = h; result.minute = mi
        if expect(58) {
            guard let s = number(2) else { return nil }
            result.second = s
            if expect(46) {
                let start = i
                while i < chars.count, chars[i] >= 48, chars[i] <= 57 { i += 1 }
                guard i > start else { return nil }
                let digits = chars[start..<min(i, start + 6)]
                var micros = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
                for _ in digits.count..<6 { micros *= 10 }
                result.microsecond = micros
            }
        }
        if i == chars.count { return result }
        if expect(90) || expect(122) { // 'Z'
            result.offsetMinutes = 0
        } else if i < chars.count, chars[i] == 43 || chars[i] == 45 { // '+' / '-'
            let negative = chars[i] == 45
            i += 1
            guard let oh = number(2) else { return nil }
            _ = expect(58)
            guard let om = number(2), oh <= 23, om <= 59 else { return nil }
            result.offsetMinutes = (oh * 60 + om) * (negative ? -1 : 1)
        }
        return i == chars.count ? result : nil
    }
}
