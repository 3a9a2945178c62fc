import StrataCore

/// Date-times as SQLite's numbers: Julian day numbers and Unix time, converted the way SQLite's
/// own date functions convert them (to the millisecond, rounding half up).
package enum DateNumbers {
    /// The Julian day of 1970-01-01T00:00:00Z, in milliseconds (SQLite's `iJD` of the Unix epoch).
    static let unixEpochJulianMilliseconds: Int64 = 210_866_760_000_000
    /// Numbers from 0 up to this are Julian days; others are Unix time (SQLite's `auto` rule).
    /// 5373484.5 is the Julian day of 10000-01-01, past every `Edm.DateTime`.
    package static let julianDayLimit = 5_373_484.5

    /// The Julian day of an instant that is a whole millisecond: SQLite's `iJD / 86400000.0`, so that
    /// it equals what `julianday()` gives for the same instant.
    package static func julianDay(milliseconds: Int64) -> Double {
        Double(milliseconds + unixEpochJulianMilliseconds) / 86_400_000.0
    }

    /// The instant a stored number means, to the millisecond: a Julian day when it lies in
    /// SQLite's Julian range, else seconds since 1970 (SQLite's `auto` rule), an INTEGER always
    /// Unix time (Strata's rule since it first read such columns, and what the `unixepoch`
    /// modifier reads). Nil when it is not finite or no `Edm.DateTime` is that far.
    package static func instant(_ number: Double) -> ODataDateTime? {
        guard number.isFinite else { return nil }
        let milliseconds: Double
        if number >= 0, number < julianDayLimit {
            milliseconds = (number * 86_400_000.0 + 0.5).rounded(.down) - Double(unixEpochJulianMilliseconds)
        } else {
            milliseconds = (number * 1000).rounded()
        }
        guard abs(milliseconds) < 1e15 else { return nil }
        let instant = ODataDateTime(millisecondsSince1970: Int64(milliseconds))
        return instant.isSupported ? instant : nil
    }

    /// An INTEGER read as seconds since 1970; nil when no `Edm.DateTime` is that far.
    package static func instant(unixSeconds seconds: Int64) -> ODataDateTime? {
        let (micros, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        let instant = ODataDateTime(microsecondsSince1970: micros)
        return instant.isSupported ? instant : nil
    }
}

extension DateStorageForm {
    /// A value as this form stores it, for an INSERT or UPDATE: text in the layout, a Julian day,
    /// or Unix seconds. A value the form cannot hold exactly — a time in a column of dates, a
    /// fraction of a second in a column of whole seconds — is refused, naming the column and what
    /// to send, rather than cut to fit. A mixed column gets Strata's own text (the value unchanged).
    package func stored(_ value: ODataValue, column: String, table: String) throws(ODataError) -> ODataValue {
        let instant: ODataDateTime
        switch value {
        case .dateTime(let d): instant = d
        case .dateTimeOffset(let d): instant = d.utc
        default: return value
        }
        switch self {
        case .mixed:
            return value
        case .text(let layout):
            guard let text = layout.lowest(instant) else {
                throw .badRequest("\(column) of \(table) holds \(layout.finest.phrase) (like '\(layout.example)'); \(Self.literal(value)) does not fit. Send a value the column can hold.")
            }
            return .string(text)
        case .julianDay:
            guard instant.microsecondsSince1970 % 1000 == 0 else {
                throw .badRequest("\(column) of \(table) holds Julian day numbers, which keep milliseconds; \(Self.literal(value)) has a finer fraction of a second. Send it to the millisecond.")
            }
            return .double(DateNumbers.julianDay(milliseconds: instant.millisecondsSince1970))
        case .unixTime(let wholeSeconds):
            let micros = instant.microsecondsSince1970
            if micros % 1_000_000 == 0 { return .int64(micros / 1_000_000) }
            guard !wholeSeconds, micros % 1000 == 0 else {
                let unit = wholeSeconds ? "whole seconds" : "milliseconds"
                throw .badRequest("\(column) of \(table) holds Unix time in \(unit); \(Self.literal(value)) has a finer fraction of a second. Send it in \(unit).")
            }
            return .double(Double(micros / 1000) / 1000)
        }
    }

    /// What the column holds, for messages and logs.
    package var description: String {
        switch self {
        case .text(let layout): return "text like '\(layout.example)'"
        case .julianDay: return "Julian day numbers"
        case .unixTime: return "Unix time"
        case .mixed: return "dates in several forms"
        }
    }

    private static func literal(_ value: ODataValue) -> String {
        switch value {
        case .dateTime(let d): return d.isoString
        case .dateTimeOffset(let d): return d.isoString
        default: return "the value"
        }
    }
}
