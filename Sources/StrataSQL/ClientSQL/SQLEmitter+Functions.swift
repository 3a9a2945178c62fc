import StrataCore

/// Functions and casts, written per dialect so that results have the declared EDM type and the
/// same value on both databases. Spellings shared with OData's `$filter` come from ``FunctionTable``.
extension SQLEmitter {
    /// `CAST` targets: SQLite `INTEGER`/`NUMERIC`/`REAL`/`TEXT`; PostgreSQL `BIGINT`/`NUMERIC`/
    /// `DOUBLE PRECISION`/`TEXT`. PostgreSQL rounds when casting a fraction to an integer and
    /// SQLite truncates, so PostgreSQL gets `TRUNC` first. Text that is not a number casts to 0
    /// on SQLite and fails the query on PostgreSQL; the dialect leaves that to the database.
    func cast(_ operand: SQLTypedExpression, to target: SQLCastType) -> SQLTerm {
        let inner = expression(operand, root: true)
        switch (dialect, target) {
        case (.sqlite, .integer): return .template(["CAST(", .expression(inner), " AS INTEGER)"])
        case (.sqlite, .decimal): return .template(["CAST(", .expression(inner), " AS NUMERIC)"])
        case (.sqlite, .double): return .template(["CAST(", .expression(inner), " AS REAL)"])
        case (_, .text): return .template(["CAST(", .expression(inner), " AS TEXT)"])
        case (.postgres, .integer):
            let fractional = operand.type.map { $0.isNumeric && !$0.isIntegral } ?? false
            return fractional ? .template(["CAST(TRUNC(", .expression(inner), ") AS BIGINT)"])
                              : .template(["CAST(", .expression(inner), " AS BIGINT)"])
        case (.postgres, .decimal): return .template(["CAST(", .expression(inner), " AS NUMERIC)"])
        case (.postgres, .double): return .template(["CAST(", .expression(inner), " AS DOUBLE PRECISION)"])
        }
    }

    func call(_ function: SQLFunction, _ arguments: [SQLTypedExpression], distinct: Bool, resultType: EDMPrimitiveType?) -> SQLTerm {
        switch function {
        case .count, .sum, .avg, .min, .max:
            let operands = Self.isStringExtreme(function, arguments) ? ordinal(arguments[0], root: true) : list(arguments)
            let call = aggregate(function, operands, distinct: distinct)
            guard dialect == .postgres else { return call }
            // PostgreSQL sums integers as NUMERIC and averages as NUMERIC; cast back to the declared type.
            switch (function, resultType) {
            case (.sum, .int64?): return .template(["CAST(", .expression(call), " AS BIGINT)"])
            case (.sum, .double?) where arguments[0].type == .single: return .template(["CAST(", .expression(call), " AS DOUBLE PRECISION)"])
            case (.avg, _): return .template(["CAST(", .expression(call), " AS DOUBLE PRECISION)"])
            default: return call
            }
        case .trim:
            return dialect == .postgres ? .call("BTRIM", [list(arguments)]) : .call("TRIM", [list(arguments)])
        case .substr:
            return substr(arguments)
        case .round:
            let digits = arguments.count == 2 ? roundingDigits(arguments[1]) : nil
            return functions.round(expression(arguments[0], root: true), digits: digits, floating: resultType == .double)
        case .year, .month, .day, .hour, .minute, .second:
            guard let part = FunctionTable.DatePart(function) else { preconditionFailure("\(function) is a date part") }
            return functions.datePart(part, expression(arguments[0], root: true), type: arguments[0].type)
        case .lower: return .call("LOWER", [list(arguments)])
        case .upper: return .call("UPPER", [list(arguments)])
        case .length: return .call("LENGTH", [list(arguments)])
        case .ltrim: return .call("LTRIM", [list(arguments)])
        case .rtrim: return .call("RTRIM", [list(arguments)])
        case .replace: return .call("REPLACE", [list(arguments)])
        case .abs: return .call("ABS", [list(arguments)])
        case .coalesce: return .call("COALESCE", [list(arguments)])
        case .nullif: return .call("NULLIF", [list(arguments)])
        }
    }

    private func aggregate(_ function: SQLFunction, _ operands: SQLTerm, distinct: Bool) -> SQLTerm {
        let name: SQLTemplatePiece
        switch function {
        case .count: name = "COUNT("
        case .sum: name = "SUM("
        case .avg: name = "AVG("
        case .min: name = "MIN("
        default: name = "MAX("
        }
        return .template([name, distinct ? "DISTINCT " : "", .expression(operands), ")"])
    }

    private func list(_ arguments: [SQLTypedExpression]) -> SQLTerm {
        Self.joined(arguments.map { expression($0, root: true) }, ", ")
    }

    /// `SUBSTR(s, start[, length])` as PostgreSQL defines it, on both: the characters at positions
    /// `start ..< start + length` that exist, counting from 1, so a start before 1 shortens the
    /// result and a negative length gives the empty string. (SQLite alone counts a negative start
    /// from the end and a negative length backwards, and PostgreSQL refuses a negative length.)
    private func substr(_ arguments: [SQLTypedExpression]) -> SQLTerm {
        let text = expression(arguments[0], root: true)
        switch dialect {
        case .postgres:
            // SUBSTR takes INTEGER positions and does not narrow BIGINT implicitly.
            let start = functions.int4(expression(arguments[1], root: true), type: arguments[1].type)
            guard arguments.count == 3 else { return .call("SUBSTR", [text, start]) }
            let length = functions.int4(expression(arguments[2], root: true), type: arguments[2].type)
            return .call("SUBSTR", [text, start, .call("GREATEST", [length, .template(["0"])])])
        case .sqlite:
            // The start is written three times: SQLite numbers `?` by position, so each is bound where it appears.
            let start = expression(arguments[1], root: true)
            let clampedStart: SQLTerm = .call("MAX", [start, .template(["1"])])
            guard arguments.count == 3 else { return .call("SUBSTR", [text, clampedStart]) }
            let length = expression(arguments[2], root: true)
            let remaining: SQLTerm = .template([.expression(start), " + ", .expression(length), " - ", .expression(clampedStart)])
            return .call("SUBSTR", [text, clampedStart, .call("MAX", [remaining, .template(["0"])])])
        }
    }

    /// A digit count for `ROUND`: a negative count counts as 0, as SQLite does (PostgreSQL would
    /// round to tens).
    private func roundingDigits(_ digits: SQLTypedExpression) -> SQLTerm {
        let nonNegative = digits.constantValue?.integerValue.map { $0 >= 0 } ?? false
        let count = functions.int4(expression(digits, root: true), type: digits.type)
        if nonNegative { return count }
        return dialect == .postgres ? .call("GREATEST", [count, .template(["0"])]) : .call("MAX", [count, .template(["0"])])
    }
}
