import Foundation

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT` written; that and the two
/// obsolete forms (`Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`) read, as the RFC
/// asks of recipients. Done by hand: a formatter would depend on the platform's locale data.
enum HTTPDate {
    static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Whole seconds since 1970 as an IMF-fixdate.
    static func format(_ seconds: Int64) -> String {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - day * 86_400
        let (year, month, dayOfMonth) = civil(fromDays: day)
        let weekday = weekdays[Int(((day % 7) + 7) % 7)]
        return "\(weekday), \(two(dayOfMonth)) \(months[month - 1]) \(year) \(two(Int(time / 3600))):\(two(Int(time / 60 % 60))):\(two(Int(time % 60))) GMT"
    }

    /// Seconds since 1970; nil when the text is not an HTTP date (the header is then ignored).
    static func parse(_ text: String) -> Int64? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        guard let monthIndex = tokens.firstIndex(where: { months.contains($0) }),
              let timeToken = tokens.first(where: { $0.contains(":") }) else { return nil }
        let month = months.firstIndex(of: tokens[monthIndex])! + 1
        let numbers = tokens.enumerated().filter { $0.offset != monthIndex && $0.element.allSatisfy(\.isNumber) }.map(\.element)
        guard numbers.count == 2, let first = Int(numbers[0]), let second = Int(numbers[1]) else { return nil }
        // IMF-fixdate and RFC 850 put the day before the year; asctime puts the year last as well.
        var (day, year) = (first, second)
        if numbers[0].count == 4 { (day, year) = (second, first) }
        if numbers[1].count == 2 { year += year < 70 ? 2000 : 1900 }
        let clock = timeToken.split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
              (0...60).contains(clock[2]) else { return nil }
        return days(fromCivil: year, month, day) * 86_400 + Int64(clock[0] * 3600 + clock[1] * 60 + clock[2])
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = Int64((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0), month, day)
    }
}
