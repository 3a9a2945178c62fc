/// The canonical functions of OData V2 and V4 that `$filter` and `$orderby` may call (besides `isof`
/// and `cast`, which take a type name and have their own ``QueryExpression`` cases). Which of them a
/// version's URLs may name is ``functions(in:)``: `substringof` is V2's only, `contains` and the
/// date and time functions after `ceiling` are V4's.
///
/// Each case documents its signature. Wherever a parameter is typed, an untyped `null` is accepted too
/// and the result is then null (null propagates). Integer parameters accept every integral type.
public enum QueryFunction: String, Sendable, Hashable, CaseIterable {
    /// `Edm.Boolean substringof(Edm.String p0, Edm.String p1)`: true when `p0` occurs in `p1`
    /// (note the order, which V2 inherited from WCF).
    case substringof
    /// `Edm.Boolean startswith(Edm.String p0, Edm.String p1)`: true when `p0` starts with `p1`.
    case startswith
    /// `Edm.Boolean endswith(Edm.String p0, Edm.String p1)`: true when `p0` ends with `p1`.
    case endswith
    /// `Edm.Int32 length(Edm.String p0)`: the number of characters.
    case length
    /// `Edm.Int32 indexof(Edm.String p0, Edm.String p1)`: the 0-based position of `p1` in `p0`, -1 when absent.
    case indexof
    /// `Edm.String replace(Edm.String p0, Edm.String find, Edm.String replace)`: every `find` replaced.
    case replace
    /// `Edm.String substring(Edm.String p0, Edm.Int32 pos)` and
    /// `Edm.String substring(Edm.String p0, Edm.Int32 pos, Edm.Int32 length)`: 0-based `pos`.
    case substring
    /// `Edm.String tolower(Edm.String p0)`.
    case tolower
    /// `Edm.String toupper(Edm.String p0)`.
    case toupper
    /// `Edm.String trim(Edm.String p0)`: without leading and trailing spaces.
    case trim
    /// `Edm.String concat(Edm.String p0, Edm.String p1)`.
    case concat
    /// `Edm.Int32 year(Edm.DateTime p0)`; also `Edm.DateTimeOffset`, whose fields are read in UTC.
    case year
    /// `Edm.Int32 month(Edm.DateTime p0)`, 1–12; also `Edm.DateTimeOffset` (UTC).
    case month
    /// `Edm.Int32 day(Edm.DateTime p0)`, 1–31; also `Edm.DateTimeOffset` (UTC).
    case day
    /// `Edm.Int32 hour(Edm.DateTime p0)`; also `Edm.DateTimeOffset` (UTC) and `Edm.Time`.
    case hour
    /// `Edm.Int32 minute(Edm.DateTime p0)`; also `Edm.DateTimeOffset` (UTC) and `Edm.Time`.
    case minute
    /// `Edm.Int32 second(Edm.DateTime p0)`; also `Edm.DateTimeOffset` (UTC) and `Edm.Time`.
    case second
    /// `Edm.Decimal round(Edm.Decimal p0)` and `Edm.Double round(Edm.Double p0)`: half away from zero.
    /// Integral arguments take the Decimal overload, `Edm.Single` the Double one.
    case round
    /// `Edm.Decimal floor(Edm.Decimal p0)` and `Edm.Double floor(Edm.Double p0)`; overloads as for `round`.
    case floor
    /// `Edm.Decimal ceiling(Edm.Decimal p0)` and `Edm.Double ceiling(Edm.Double p0)`; overloads as for `round`.
    case ceiling
    /// V4: `Edm.Boolean contains(Edm.String p0, Edm.String p1)`: true when `p1` occurs in `p0`
    /// (V2's `substringof` with its arguments the other way round).
    case contains
    /// V4: `Edm.Decimal fractionalseconds(Edm.DateTimeOffset p0)`: the fraction of the second, 0 ≤ f < 1;
    /// also `Edm.TimeOfDay`.
    case fractionalseconds
    /// V4: `date(Edm.DateTimeOffset p0)`: the date part. Strata has no `Edm.Date` type: the result is
    /// the date-time at midnight (UTC), which compares with date literals such as `2020-01-01`.
    case date
    /// V4: `Edm.TimeOfDay time(Edm.DateTimeOffset p0)`: the time of day (UTC).
    case time
    /// V4: `Edm.DateTimeOffset now()`: the time the request is bound, in UTC.
    case now
    /// V4: `Edm.Int32 totaloffsetminutes(Edm.DateTimeOffset p0)`: the offset from UTC in minutes;
    /// 0 for values that are stored as UTC instants (all of PostgreSQL's).
    case totaloffsetminutes
    /// V4: `Edm.DateTimeOffset maxdatetime()`: 9999-12-31T23:59:59.999999Z.
    case maxdatetime
    /// V4: `Edm.DateTimeOffset mindatetime()`: 0001-01-01T00:00:00Z.
    case mindatetime

    /// The functions a URL of `version` may call, in the order messages list them.
    public static func functions(in version: ODataVersion) -> [QueryFunction] {
        version.isV4 ? allCases.filter { $0 != .substringof } : allCases.filter { !$0.isV4Only }
    }

    /// True for the functions only V4 defines.
    public var isV4Only: Bool {
        switch self {
        case .contains, .fractionalseconds, .date, .time, .now, .totaloffsetminutes, .maxdatetime, .mindatetime: return true
        default: return false
        }
    }

    /// The function's name in a URL.
    public var name: String { rawValue }

    /// How many arguments the function takes.
    public var arity: ClosedRange<Int> {
        switch self {
        case .now, .maxdatetime, .mindatetime:
            return 0...0
        case .length, .tolower, .toupper, .trim, .year, .month, .day, .hour, .minute, .second,
             .round, .floor, .ceiling, .fractionalseconds, .date, .time, .totaloffsetminutes:
            return 1...1
        case .substringof, .startswith, .endswith, .indexof, .concat, .contains:
            return 2...2
        case .substring:
            return 2...3
        case .replace:
            return 3...3
        }
    }

    /// `1 argument`, `2 or 3 arguments`: the arity for messages.
    var arityDescription: String {
        let range = arity
        if range.count == 1 { return range.lowerBound == 0 ? "no arguments" : range.lowerBound == 1 ? "1 argument" : "\(range.lowerBound) arguments" }
        return "\(range.lowerBound) or \(range.upperBound) arguments"
    }

    /// The signatures as people read them, for error messages: `substring(Edm.String, Edm.Int32) -> Edm.String`.
    public var signatures: [String] {
        let s = "Edm.String", i = "Edm.Int32", b = "Edm.Boolean"
        switch self {
        case .substringof, .startswith, .endswith, .contains: return ["\(name)(\(s), \(s)) -> \(b)"]
        case .length: return ["length(\(s)) -> \(i)"]
        case .indexof: return ["indexof(\(s), \(s)) -> \(i)"]
        case .replace: return ["replace(\(s), \(s), \(s)) -> \(s)"]
        case .substring: return ["substring(\(s), \(i)) -> \(s)", "substring(\(s), \(i), \(i)) -> \(s)"]
        case .tolower, .toupper, .trim: return ["\(name)(\(s)) -> \(s)"]
        case .concat: return ["concat(\(s), \(s)) -> \(s)"]
        case .year, .month, .day:
            return ["\(name)(Edm.DateTime) -> \(i)", "\(name)(Edm.DateTimeOffset) -> \(i)"]
        case .hour, .minute, .second:
            return ["\(name)(Edm.DateTime) -> \(i)", "\(name)(Edm.DateTimeOffset) -> \(i)", "\(name)(Edm.Time) -> \(i)"]
        case .round, .floor, .ceiling:
            return ["\(name)(Edm.Decimal) -> Edm.Decimal", "\(name)(Edm.Double) -> Edm.Double"]
        case .fractionalseconds: return ["fractionalseconds(Edm.DateTimeOffset) -> Edm.Decimal", "fractionalseconds(Edm.TimeOfDay) -> Edm.Decimal"]
        case .date: return ["date(Edm.DateTimeOffset) -> Edm.Date"]
        case .time: return ["time(Edm.DateTimeOffset) -> Edm.TimeOfDay"]
        case .totaloffsetminutes: return ["totaloffsetminutes(Edm.DateTimeOffset) -> \(i)"]
        case .now, .maxdatetime, .mindatetime: return ["\(name)() -> Edm.DateTimeOffset"]
        }
    }
}
