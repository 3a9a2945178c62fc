import StrataCore

/// The functions client SQL may call: a closed allow-list, each with its arity.
///
/// Any other name is refused by the parser, so database functions that sleep, read files, load
/// extensions or reveal the server (`pg_sleep`, `load_extension`, `version`) never reach a database.
/// Date parts are Strata functions: the emitter writes them per dialect.
public enum SQLFunction: String, Sendable, Hashable, CaseIterable {
    case count = "COUNT"
    case sum = "SUM"
    case avg = "AVG"
    case min = "MIN"
    case max = "MAX"
    case lower = "LOWER"
    case upper = "UPPER"
    case length = "LENGTH"
    case trim = "TRIM"
    case ltrim = "LTRIM"
    case rtrim = "RTRIM"
    /// `SUBSTR(s, start[, length])`, also written `SUBSTRING`.
    case substr = "SUBSTR"
    case replace = "REPLACE"
    case abs = "ABS"
    case round = "ROUND"
    case coalesce = "COALESCE"
    case nullif = "NULLIF"
    case year = "YEAR"
    case month = "MONTH"
    case day = "DAY"
    case hour = "HOUR"
    case minute = "MINUTE"
    case second = "SECOND"

    /// Looks a function up by the name the client wrote, ignoring case.
    public init?(name: String) {
        let upper = name.uppercased()
        if upper == "SUBSTRING" {
            self = .substr
            return
        }
        guard let function = SQLFunction(rawValue: upper) else { return nil }
        self = function
    }

    /// Aggregates fold many rows into one value; they may not appear in `WHERE`, `ON` or `GROUP BY`.
    public var isAggregate: Bool {
        switch self {
        case .count, .sum, .avg, .min, .max: return true
        default: return false
        }
    }

    /// Extracts a field of a date, time or timestamp.
    var isDatePart: Bool {
        switch self {
        case .year, .month, .day, .hour, .minute, .second: return true
        default: return false
        }
    }

    /// How many arguments the function takes.
    public var arity: ClosedRange<Int> {
        switch self {
        case .count, .sum, .avg, .min, .max, .lower, .upper, .length, .abs: return 1...1
        case .year, .month, .day, .hour, .minute, .second: return 1...1
        case .trim, .ltrim, .rtrim, .round: return 1...2
        case .substr: return 2...3
        case .replace: return 3...3
        case .nullif: return 2...2
        case .coalesce: return 2...32
        }
    }

    /// The names accepted, for the message that refuses an unknown function.
    static var allowedNames: String {
        (allCases.map(\.rawValue) + ["SUBSTRING"]).sorted().joined(separator: ", ")
    }
}

/// The target types of `CAST(x AS type)`, each a Strata type that both databases represent alike.
public enum SQLCastType: String, Sendable, Hashable, CaseIterable {
    /// `INTEGER`, `INT` or `BIGINT`: 64-bit (SQLite's `INTEGER` is 64-bit, so PostgreSQL gets `BIGINT`).
    /// Numbers with a fraction are truncated toward zero on both databases.
    case integer
    /// `DECIMAL` or `NUMERIC`, without precision arguments.
    case decimal
    /// `REAL`, `DOUBLE`, `DOUBLE PRECISION` or `FLOAT`.
    case double
    /// `TEXT` or `VARCHAR`, without a length.
    case text

    /// Reads a type name (already upper-cased); `DOUBLE PRECISION` arrives as `DOUBLE`.
    init?(keyword: String) {
        switch keyword {
        case "INTEGER", "INT", "BIGINT": self = .integer
        case "DECIMAL", "NUMERIC": self = .decimal
        case "REAL", "DOUBLE", "FLOAT": self = .double
        case "TEXT", "VARCHAR": self = .text
        default: return nil
        }
    }

    /// The EDM type of the cast's result.
    public var edmType: EDMPrimitiveType {
        switch self {
        case .integer: return .int64
        case .decimal: return .decimal
        case .double: return .double
        case .text: return .string
        }
    }

    /// The type names accepted, for messages.
    static let acceptedNames = "INTEGER, INT, BIGINT, DECIMAL, NUMERIC, REAL, DOUBLE, DOUBLE PRECISION, FLOAT, TEXT, VARCHAR"
}
