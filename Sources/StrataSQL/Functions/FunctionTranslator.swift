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
        case .contains:
            // V4's contains(p0, p1): p1 occurs in p0.
            return call(.substringof, [a[1], a[0]], argumentTypes: argumentTypes.reversed(), resultType: resultType)
        case .fractionalseconds, .date, .time, .totaloffsetminutes:
            return v4DateFunction(function, a[0], type: argumentTypes.first ?? nil)
        case .now, .maxdatetime, .mindatetime:
            // Constants of the request: the binder made them literals.
            return .null
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
            return table.replace(a[0], a[1], a[2])
        case .substring:
            // 0-based start; a negative start counts as 0 and a negative length as 0 on both databases.
            // Beyond 2^31 both are past the end of any string: clamped there, as PostgreSQL's
            // substr takes INTEGER positions (and a bigint literal would not even match its signature).
            // The clamps keep a NULL position NULL (``FunctionTable/clamped(_:lower:upper:)``).
            let clampedStart = table.clamped(a[1], lower: "0", upper: "2147483646")
            let start: SQLTerm = sqlite ? .template(["(", .expression(clampedStart), " + 1)"])
                                        : .template(["CAST(", .expression(clampedStart), " + 1 AS integer)"])
            if a.count == 2 {
                return .template(["substr(", .expression(a[0]), ", ", .expression(start), ")"])
            }
            let clampedLength = table.clamped(a[2], lower: "0", upper: "2147483647")
            let length: SQLTerm = sqlite ? clampedLength : .template(["CAST(", .expression(clampedLength), " AS integer)"])
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
        let integral = source?.isIntegral ?? false
        let truncated: SQLTerm = sqlite || integral ? value : .template(["trunc(", .expression(value), ")"])
        let sqlType: SQLTemplatePiece
        switch target {
        case .byte, .sbyte, .int16: sqlType = sqlite ? "INTEGER" : "smallint"
        case .int32: sqlType = sqlite ? "INTEGER" : "integer"
        default: sqlType = sqlite ? "INTEGER" : "bigint"
        }
        let check: [SQLTemplatePiece]
        if sqlite, !integral {
            // SQLite checks the value before its CAST truncates it (the CAST saturates and cannot
            // tell), so the bounds are one past the range and exclusive: -0.5 is the Byte 0.
            let (above, below): (SQLTemplatePiece, SQLTemplatePiece)
            switch target {
            case .byte: (above, below) = (" > -1 AND ", " < 256")
            case .sbyte: (above, below) = (" > -129 AND ", " < 128")
            case .int16: (above, below) = (" > -32769 AND ", " < 32768")
            case .int32: (above, below) = (" > -2147483649 AND ", " < 2147483648")
            // -2^63 is in range; 2^63 as a REAL is exact.
            default: (above, below) = (" >= -9223372036854775808 AND ", " < 9223372036854775808.0")
            }
            check = [.expression(truncated), above, .expression(truncated), below]
        } else {
            let range: SQLTemplatePiece
            switch target {
            case .byte: range = " BETWEEN 0 AND 255"
            case .sbyte: range = " BETWEEN -128 AND 127"
            case .int16: range = " BETWEEN -32768 AND 32767"
            case .int32: range = " BETWEEN -2147483648 AND 2147483647"
            default: range = " BETWEEN -9223372036854775808 AND 9223372036854775807"
            }
            check = [.expression(truncated), range]
        }
        return .template(["(CASE WHEN "] + check + [" THEN CAST(", .expression(truncated), " AS ", sqlType, ") END)"])
    }

    /// `CAST(NULL AS …)` in the column type an EDM type is stored as.
    package func typedNull(_ type: EDMPrimitiveType) -> SQLTerm {
        table.typedNull(type)
    }
}
