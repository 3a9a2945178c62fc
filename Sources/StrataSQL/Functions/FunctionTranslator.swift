import StrataCore

/// The canonical `$filter` functions and `cast`, spelled for each database so that both give the
/// same answers: 0-based positions, case-sensitive matching, half-away-from-zero rounding, fields
/// of date-times in UTC, and null in, null out.
package struct FunctionTranslator {
    package init(dialect: SQLDialect) {
        self.dialect = dialect
    }

    package let dialect: SQLDialect

    package func call(_ function: QueryFunction, _ a: [SQLTerm], argumentTypes: [EDMPrimitiveType?], resultType: EDMPrimitiveType?) -> SQLTerm {
        let sqlite = dialect == .sqlite
        switch function {
        case .substringof:
            // substringof(p0, p1): p0 occurs in p1.
            return sqlite ? .template(["(instr(", .expression(a[1]), ", ", .expression(a[0]), ") > 0)"])
                          : .template(["(strpos(", .expression(a[1]), ", ", .expression(a[0]), ") > 0)"])
        case .startswith:
            return .template(["(substr(", .expression(a[0]), ", 1, length(", .expression(a[1]), ")) = ", .expression(a[1]), ")"])
        case .endswith:
            return .template(["(length(", .expression(a[1]), ") <= length(", .expression(a[0]), ") AND substr(",
                              .expression(a[0]), ", length(", .expression(a[0]), ") - length(", .expression(a[1]),
                              ") + 1) = ", .expression(a[1]), ")"])
        case .length:
            return .template(["length(", .expression(a[0]), ")"])
        case .indexof:
            return sqlite ? .template(["(instr(", .expression(a[0]), ", ", .expression(a[1]), ") - 1)"])
                          : .template(["(strpos(", .expression(a[0]), ", ", .expression(a[1]), ") - 1)"])
        case .replace:
            return .template(["replace(", .expression(a[0]), ", ", .expression(a[1]), ", ", .expression(a[2]), ")"])
        case .substring:
            // 0-based start; a negative start counts as 0 and a negative length as 0 on both databases.
            // Beyond 2^31 both are past the end of any string: clamped there, as PostgreSQL's
            // substr takes INTEGER positions (and a bigint literal would not even match its signature).
            let start: SQLTerm = sqlite ? .template(["(MIN(MAX(", .expression(a[1]), ", 0), 2147483646) + 1)"])
                                        : .template(["CAST(LEAST(GREATEST(", .expression(a[1]), ", 0), 2147483646) + 1 AS integer)"])
            if a.count == 2 {
                return .template(["substr(", .expression(a[0]), ", ", .expression(start), ")"])
            }
            let length: SQLTerm = sqlite ? .template(["MIN(MAX(", .expression(a[2]), ", 0), 2147483647)"])
                                         : .template(["CAST(LEAST(GREATEST(", .expression(a[2]), ", 0), 2147483647) AS integer)"])
            return .template(["substr(", .expression(a[0]), ", ", .expression(start), ", ", .expression(length), ")"])
        case .tolower:
            return .template(["lower(", .expression(a[0]), ")"])
        case .toupper:
            return .template(["upper(", .expression(a[0]), ")"])
        case .trim:
            return .template(["trim(", .expression(a[0]), ")"])
        case .concat:
            // `||` propagates null, as OData's concat does (PostgreSQL's concat() would skip nulls).
            return .template(["(", .expression(a[0]), " || ", .expression(a[1]), ")"])
        case .year, .month, .day, .hour, .minute, .second:
            return datePart(function, a[0], type: argumentTypes.first ?? nil)
        case .round:
            if sqlite { return .template(["round(", .expression(a[0]), ")"]) }
            // PostgreSQL rounds doubles half to even; through numeric it rounds half away from zero.
            if resultType == .double {
                return .template(["CAST(round(CAST(", .expression(a[0]), " AS numeric)) AS double precision)"])
            }
            return .template(["round(", .expression(a[0]), ")"])
        case .floor:
            if sqlite {
                return .template(["(CASE WHEN ", .expression(a[0]), " < CAST(", .expression(a[0]), " AS INTEGER) THEN CAST(",
                                  .expression(a[0]), " AS INTEGER) - 1 ELSE CAST(", .expression(a[0]), " AS INTEGER) END)"])
            }
            return .template(["floor(", .expression(a[0]), ")"])
        case .ceiling:
            if sqlite {
                return .template(["(CASE WHEN ", .expression(a[0]), " > CAST(", .expression(a[0]), " AS INTEGER) THEN CAST(",
                                  .expression(a[0]), " AS INTEGER) + 1 ELSE CAST(", .expression(a[0]), " AS INTEGER) END)"])
            }
            return .template(["ceiling(", .expression(a[0]), ")"])
        }
    }

    /// Calendar fields as integers; DateTimeOffset values are read in UTC (SQLite's date functions
    /// convert a stored offset to UTC, PostgreSQL sessions run in UTC).
    private func datePart(_ function: QueryFunction, _ value: SQLTerm, type: EDMPrimitiveType?) -> SQLTerm {
        if dialect == .sqlite {
            let format: SQLTemplatePiece
            switch function {
            case .year: format = "'%Y'"
            case .month: format = "'%m'"
            case .day: format = "'%d'"
            case .hour: format = "'%H'"
            case .minute: format = "'%M'"
            default: format = "'%S'"
            }
            return .template(["CAST(strftime(", format, ", ", .expression(value), ") AS INTEGER)"])
        }
        let field: SQLTemplatePiece
        switch function {
        case .year: field = "YEAR"
        case .month: field = "MONTH"
        case .day: field = "DAY"
        case .hour: field = "HOUR"
        case .minute: field = "MINUTE"
        default: field = "SECOND"
        }
        // EXTRACT(SECOND …) includes the fraction; OData's second() is the whole second.
        return .template(["CAST(floor(EXTRACT(", field, " FROM ", .expression(value), ")) AS INTEGER)"])
    }

    /// `cast` between numeric types; conversion to an integral type truncates toward zero, and a value
    /// outside the target's range becomes null on both databases (PostgreSQL would raise an error).
    package func cast(_ value: SQLTerm, from source: EDMPrimitiveType?, to target: EDMPrimitiveType?) -> SQLTerm {
        guard let target else { return value }
        // Only an untyped null has no source type (the binder allows no other cast from unknown):
        // a NULL of the target's type, which PostgreSQL can pick function signatures for.
        if source == nil { return typedNull(target) }
        let sqlite = dialect == .sqlite
        switch target {
        case .double: return sqlite ? .template(["CAST(", .expression(value), " AS REAL)"])
                                    : .template(["CAST(", .expression(value), " AS double precision)"])
        case .single: return sqlite ? .template(["CAST(", .expression(value), " AS REAL)"])
                                    : .template(["CAST(", .expression(value), " AS real)"])
        case .decimal: return sqlite ? .template(["CAST(", .expression(value), " AS NUMERIC)"])
                                     : .template(["CAST(", .expression(value), " AS numeric)"])
        default: break
        }
        // Integral targets: truncate (SQLite's CAST does; PostgreSQL's rounds, so trunc first), then range-check.
        let truncated: SQLTerm = sqlite || (source?.isIntegral ?? false) ? value : .template(["trunc(", .expression(value), ")"])
        let range: SQLTemplatePiece
        let sqlType: SQLTemplatePiece
        switch target {
        case .byte: range = " BETWEEN 0 AND 255"; sqlType = sqlite ? "INTEGER" : "smallint"
        case .sbyte: range = " BETWEEN -128 AND 127"; sqlType = sqlite ? "INTEGER" : "smallint"
        case .int16: range = " BETWEEN -32768 AND 32767"; sqlType = sqlite ? "INTEGER" : "smallint"
        case .int32: range = " BETWEEN -2147483648 AND 2147483647"; sqlType = sqlite ? "INTEGER" : "integer"
        default: range = " BETWEEN -9223372036854775808 AND 9223372036854775807"; sqlType = sqlite ? "INTEGER" : "bigint"
        }
        return .template(["(CASE WHEN ", .expression(truncated), range, " THEN CAST(", .expression(truncated), " AS ", sqlType, ") END)"])
    }

    /// `CAST(NULL AS …)` in the column type an EDM type is stored as.
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
