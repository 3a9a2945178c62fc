import StrataCore

/// The one table of function spellings that differ between the databases, used by both the OData
/// `$filter` translator (``FunctionTranslator``) and the client SQL emitter, so that a function
/// means the same whichever way a query reaches the server: date parts of the UTC instant as whole
/// numbers, rounding half away from zero, typed NULLs, and clamps that keep NULL.
package struct FunctionTable: Sendable {
    package let dialect: SQLDialect

    package init(dialect: SQLDialect) {
        self.dialect = dialect
    }

    /// A field of a date-time.
    package enum DatePart: Sendable {
        case year, month, day, hour, minute, second

        /// The field of `$filter`'s `year(…)` … `second(…)`; nil for other functions.
        package init?(_ function: QueryFunction) {
            switch function {
            case .year: self = .year
            case .month: self = .month
            case .day: self = .day
            case .hour: self = .hour
            case .minute: self = .minute
            case .second: self = .second
            default: return nil
            }
        }

        /// The field of `$sql`'s `YEAR(…)` … `SECOND(…)`; nil for other functions.
        package init?(_ function: SQLFunction) {
            switch function {
            case .year: self = .year
            case .month: self = .month
            case .day: self = .day
            case .hour: self = .hour
            case .minute: self = .minute
            case .second: self = .second
            default: return nil
            }
        }

        /// SQLite's `strftime` format and PostgreSQL's `EXTRACT` field for the part.
        var spellings: (strftime: SQLTemplatePiece, extract: SQLTemplatePiece) {
            switch self {
            case .year: return ("'%Y'", "YEAR")
            case .month: return ("'%m'", "MONTH")
            case .day: return ("'%d'", "DAY")
            case .hour: return ("'%H'", "HOUR")
            case .minute: return ("'%M'", "MINUTE")
            case .second: return ("'%S'", "SECOND")
            }
        }
    }

    /// A calendar field as an integer. SQLite stores timestamps as text (`YYYY-MM-DD HH:MM:SS.SSS`,
    /// an offset applied when present), which `strftime` reads; PostgreSQL uses `EXTRACT`, on the
    /// UTC instant for `timestamptz` whatever the session's time zone. Seconds are whole seconds on
    /// both (SQLite's `%S` truncates; on PostgreSQL `FLOOR` drops the fraction `EXTRACT` returns).
    /// A value of unknown type (a bare NULL) gets one, since `EXTRACT` has several signatures; so
    /// does an `Edm.DateTime` asked for a time part, which may be a PostgreSQL `date` (whose
    /// `EXTRACT(HOUR …)` is an error, where a SQLite date answers 0).
    package func datePart(_ part: DatePart, _ value: SQLTerm, type: EDMPrimitiveType?) -> SQLTerm {
        switch dialect {
        case .sqlite:
            return .template(["CAST(strftime(", part.spellings.strftime, ", ", .expression(value), ") AS INTEGER)"])
        case .postgres:
            let timePart = part == .hour || part == .minute || part == .second
            let source: SQLTerm = type == .dateTimeOffset ? .template(["(", .expression(value), " AT TIME ZONE 'UTC')"])
                : type == nil || (type == .dateTime && timePart) ? .template(["CAST(", .expression(value), " AS timestamp)"]) : value
            let extract: SQLTerm = .template(["EXTRACT(", part.spellings.extract, " FROM ", .expression(source), ")"])
            return part == .second ? .template(["CAST(FLOOR(", .expression(extract), ") AS INTEGER)"])
                                   : .template(["CAST(", .expression(extract), " AS INTEGER)"])
        }
    }

    /// An integer operation that both databases compute in 64 bits and fail on overflow.
    package enum IntegerOperation: Sendable {
        case add, subtract, multiply, divide
    }

    /// Integer `+ - * /` in 64 bits, an error on overflow, and division by zero NULL, on both
    /// databases: SQLite quietly turns an overflowing integer into a float, so the server gives its
    /// connections checked functions (`strata_add` …, see `SQLiteCheckedArithmetic`); PostgreSQL's
    /// `bigint` arithmetic fails by itself, so its operands must be `bigint` already (the caller
    /// knows which of them are).
    package func checkedArithmetic(_ operation: IntegerOperation, _ lhs: SQLTerm, _ rhs: SQLTerm) -> SQLTerm {
        let divisor: SQLTerm = operation == .divide ? .call("NULLIF", [rhs, .template(["0"])]) : rhs
        switch dialect {
        case .sqlite:
            switch operation {
            case .add: return .call("strata_add", [lhs, divisor])
            case .subtract: return .call("strata_sub", [lhs, divisor])
            case .multiply: return .call("strata_mul", [lhs, divisor])
            case .divide: return .call("strata_div", [lhs, divisor])
            }
        case .postgres:
            let symbol: SQLTemplatePiece
            switch operation {
            case .add: symbol = " + "
            case .subtract: symbol = " - "
            case .multiply: symbol = " * "
            case .divide: symbol = " / "
            }
            return .template(["(", .expression(lhs), symbol, .expression(divisor), ")"])
        }
    }

    /// `ROUND(x[, digits])`, half away from zero on both: PostgreSQL rounds doubles half to even,
    /// so a floating point value goes through `NUMERIC` and back (which is also the only type
    /// PostgreSQL rounds to a digit count).
    package func round(_ value: SQLTerm, digits: SQLTerm? = nil, floating: Bool) -> SQLTerm {
        let throughNumeric = floating && dialect == .postgres
        let operand: SQLTerm = throughNumeric ? .template(["CAST(", .expression(value), " AS NUMERIC)"]) : value
        let rounded: SQLTerm = .call("ROUND", digits.map { [operand, $0] } ?? [operand])
        return throughNumeric ? .template(["CAST(", .expression(rounded), " AS DOUBLE PRECISION)"]) : rounded
    }

    /// `value` clamped to `lower ... upper` (either may be nil), NULL when `value` is NULL, on both
    /// databases: SQLite's two-argument `MIN` and `MAX` are NULL when an argument is; PostgreSQL's
    /// `LEAST` and `GREATEST` skip NULLs (`GREATEST(NULL, 0)` is 0), so it gets a `CASE`. The value
    /// is written more than once: each occurrence binds its own parameters, in the order written.
    package func clamped(_ value: SQLTerm, lower: SQLTemplatePiece?, upper: SQLTemplatePiece?) -> SQLTerm {
        switch dialect {
        case .sqlite:
            var result = value
            if let lower { result = .template(["MAX(", .expression(result), ", ", lower, ")"]) }
            if let upper { result = .template(["MIN(", .expression(result), ", ", upper, ")"]) }
            return result
        case .postgres:
            var pieces: [SQLTemplatePiece] = ["(CASE"]
            if let lower { pieces += [" WHEN ", .expression(value), " < ", lower, " THEN ", lower] }
            if let upper { pieces += [" WHEN ", .expression(value), " > ", upper, " THEN ", upper] }
            pieces += [" ELSE ", .expression(value), " END)"]
            return .template(pieces)
        }
    }

    /// `REPLACE(text, pattern, replacement)`, NULL when any argument is, on both databases: SQLite
    /// returns the text unchanged for an empty pattern even when the replacement is NULL.
    package func replace(_ text: SQLTerm, _ pattern: SQLTerm, _ replacement: SQLTerm) -> SQLTerm {
        let call: SQLTerm = .call("REPLACE", [text, pattern, replacement])
        guard dialect == .sqlite else { return call }
        // Placeholders are numbered in the order written, so the replacement is bound twice.
        return .template(["(CASE WHEN ", .expression(replacement), " IS NULL THEN NULL ELSE ", .expression(call), " END)"])
    }

    /// `CAST(NULL AS …)` in the column type an EDM type is stored as (PostgreSQL needs the type to
    /// choose function signatures); the keyword NULL on SQLite.
    package func typedNull(_ type: EDMPrimitiveType) -> SQLTerm {
        guard dialect == .postgres else { return .null }
        switch type {
        case .boolean: return .template(["CAST(NULL AS boolean)"])
        case .byte, .sbyte, .int16: return .template(["CAST(NULL AS smallint)"])
        case .int32: return .template(["CAST(NULL AS integer)"])
        case .int64: return .template(["CAST(NULL AS bigint)"])
        case .decimal: return .template(["CAST(NULL AS numeric)"])
        case .double: return .template(["CAST(NULL AS double precision)"])
        case .single: return .template(["CAST(NULL AS real)"])
        case .dateTime: return .template(["CAST(NULL AS timestamp)"])
        case .dateTimeOffset: return .template(["CAST(NULL AS timestamptz)"])
        case .time: return .template(["CAST(NULL AS time)"])
        case .guid: return .template(["CAST(NULL AS uuid)"])
        case .binary: return .template(["CAST(NULL AS bytea)"])
        case .string: return .template(["CAST(NULL AS text)"])
        }
    }
}
