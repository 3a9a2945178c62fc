import StrataCore

/// The canonical `$filter` functions and `cast`, spelled for each database so that both give the
/// same answers: 0-based positions, case-sensitive matching, half-away-from-zero rounding, fields
/// of date-times in UTC, and null in, null out. What `$sql` shares (date parts, rounding, typed
/// NULLs) comes from the one ``FunctionTable``.
package struct FunctionTranslator {
    package init(dialect: SQLDialect) {
        self.dialect = dialect
    }

    private var table: FunctionTable { FunctionTable(dialect: dialect) }

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
            guard let part = FunctionTable.DatePart(function) else { preconditionFailure("\(function) is a date part") }
            return table.datePart(part, a[0], type: argumentTypes.first ?? nil)
        case .round:
            return table.round(a[0], floating: resultType == .double)
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
        table.typedNull(type)
    }
}
