import StrataCore

/// How a SQLite column holds its `Edm.DateTime` or `Edm.DateTimeOffset` values, when that is not
/// Strata's own text form.
///
/// SQLite has no date type: a column holds whatever its writers put there, and SQLite's date
/// functions read text (`2016-07-04`, `2016-07-04 10:00:00`, `…T10:00:00.123Z`, `…+02:00`), Julian
/// day numbers and, with the `unixepoch` modifier, Unix time. Strata writes and compares its own
/// text (`YYYY-MM-DD HH:MM:SS.SSS`) in a column that holds nothing else, or nothing yet; that is
/// "no form" (nil) wherever a form is asked for. For a column filled by other programs, the
/// catalog reader samples its values and names their form (``classify(_:type:)``), so that
/// literals are written the way the column stores them — a comparison stays a comparison of the
/// stored values, and an index on the column serves it — and Strata's own writes keep the form.
///
/// The form is a server-side storage detail: StrataCore's EDM types, which the client shares,
/// never see it. PostgreSQL's columns are real timestamps and have no form.
package enum DateStorageForm: Sendable, Hashable {
    /// Text in one layout whose text order is time order (``DateTextLayout``).
    case text(DateTextLayout)
    /// Julian day numbers (REAL, or INTEGER where a NUMERIC column kept a whole number), as SQLite's
    /// `julianday()` writes them; read to the millisecond, as SQLite reads them.
    case julianDay
    /// Seconds since 1970-01-01 UTC, as SQLite's `unixepoch` modifier reads them. `wholeSeconds`
    /// when every value seen is an INTEGER, so that a value with a fraction of a second would not fit.
    case unixTime(wholeSeconds: Bool)
    /// Values of more than one form: compared, sorted and read through SQLite's date functions,
    /// which understand every form, at the price of the column's index.
    case mixed
}

/// The layout of a column of dates as text.
///
/// The values may come in several precisions (``precisions``) — a writer may leave out a fraction
/// of a second that is zero, as Python's `str(datetime)` does, or a time that is midnight — but
/// always with the same separator and zone suffix. Every such layout sorts as time when compared
/// as text: a shorter value is a prefix of the longer one for the same instant, and the suffixes
/// allowed (none, or a fixed `+HH:MM`/`-HH:MM`) sort before the digits, `.` and `:` that a longer
/// value has in their place. `Z` sorts after them, so a `Z` layout has one precision only.
package struct DateTextLayout: Sendable, Hashable {
    /// Between date and time: a space or `T`.
    package var separator: Character
    /// The precisions values are written in, lowest first; never empty.
    package var precisions: [DatePrecision]
    /// After the time: empty (UTC), `Z`, or a fixed offset such as `+02:00` (the value's local time).
    package var suffix: String

    package init(separator: Character = " ", precisions: [DatePrecision], suffix: String = "") {
        self.separator = separator
        self.precisions = precisions.sorted()
        self.suffix = suffix
    }

    /// The finest precision the layout writes.
    package var finest: DatePrecision { precisions.last ?? .second }

    /// Minutes east of UTC that the layout's local times are in.
    package var offsetMinutes: Int {
        guard suffix.count == 6, let hours = Int(suffix.dropFirst().prefix(2)), let minutes = Int(suffix.suffix(2)) else { return 0 }
        return (suffix.hasPrefix("-") ? -1 : 1) * (hours * 60 + minutes)
    }

    /// An example of the layout, for messages: `2016-07-04 10:00:00`.
    package var example: String {
        render(ODataDateTime(year: 2016, month: 7, day: 4, hour: finest == .day ? 0 : 10)!, at: finest) ?? "2016-07-04"
    }
}

/// How much of a date-time a text value writes: the date, to the minute, to the second, or with
/// `n` fraction digits.
package enum DatePrecision: Sendable, Hashable, Comparable {
    case day
    case minute
    case second
    case fraction(Int)

    private var rank: Int {
        switch self {
        case .day: return 0
        case .minute: return 1
        case .second: return 2
        case .fraction(let digits): return 2 + digits
        }
    }

    package static func < (lhs: DatePrecision, rhs: DatePrecision) -> Bool { lhs.rank < rhs.rank }

    /// The length of one step of this precision, in microseconds (1 below a microsecond).
    var microseconds: Int64 {
        switch self {
        case .day: return 86_400_000_000
        case .minute: return 60_000_000
        case .second: return 1_000_000
        case .fraction(let digits):
            var step: Int64 = 1_000_000
            for _ in 0..<min(digits, 6) { step /= 10 }
            return step
        }
    }

    /// What a column of this precision holds, for messages.
    var phrase: String {
        switch self {
        case .day: return "dates without a time of day"
        case .minute: return "times to the whole minute"
        case .second: return "times to the whole second"
        case .fraction(let digits): return "times to \(digits) digit\(digits == 1 ? "" : "s") after the second"
        }
    }
}

extension DateTextLayout {
    /// `instant` written at `precision` in this layout; nil when the precision cannot write it
    /// exactly, or its local time falls outside years 1 to 9999.
    package func render(_ instant: ODataDateTime, at precision: DatePrecision) -> String? {
        let local = ODataDateTime(microsecondsSince1970: instant.microsecondsSince1970 + Int64(offsetMinutes) * 60_000_000)
        guard local.isSupported else { return nil }
        let step = precision.microseconds
        guard local.microsecondsSince1970.flooredRemainder(step) == 0 else { return nil }
        let c = local.components
        var text = "\(Self.pad(c.year, 4))-\(Self.pad(c.month, 2))-\(Self.pad(c.day, 2))"
        guard precision != .day else { return text }
        text.append(separator)
        text += "\(Self.pad(c.hour, 2)):\(Self.pad(c.minute, 2))"
        if precision >= .second { text += ":\(Self.pad(c.second, 2))" }
        if case .fraction(let digits) = precision {
            let six = Self.pad(c.microsecond, 6)
            text += "." + (digits <= 6 ? String(six.prefix(digits)) : six + String(repeating: "0", count: digits - 6))
        }
        return text + suffix
    }

    /// The shortest text the layout writes `instant` as; nil when its finest precision cannot hold it.
    package func lowest(_ instant: ODataDateTime) -> String? {
        for precision in precisions {
            if let text = render(instant, at: precision) { return text }
        }
        return nil
    }

    /// The longest text the layout writes `instant` as; nil when its finest precision cannot hold it.
    package func highest(_ instant: ODataDateTime) -> String? {
        render(instant, at: finest)
    }

    /// The latest instant at or before `instant` that the finest precision writes (in local time).
    package func truncated(_ instant: ODataDateTime) -> ODataDateTime {
        let step = finest.microseconds
        let offset = Int64(offsetMinutes) * 60_000_000
        let local = instant.microsecondsSince1970 + offset
        return ODataDateTime(microsecondsSince1970: local - local.flooredRemainder(step) - offset)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension Int64 {
    /// The remainder with the sign of the divisor, so that times before 1970 floor like later ones.
    func flooredRemainder(_ divisor: Int64) -> Int64 {
        let r = self % divisor
        return r < 0 ? r + divisor : r
    }
}
