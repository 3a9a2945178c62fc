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
            var operands = Self.isStringExtreme(function, arguments) ? ordinal(arguments[0], root: true) : list(arguments)
            // PostgreSQL cannot choose among SUM's, AVG's, MIN's and MAX's signatures for an argument
            // of unknown type (only NULL has none); the result is NULL whichever it takes.
            if dialect == .postgres, function != .count, arguments[0].type == nil { operands = .template(["CAST(NULL AS bigint)"]) }
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
        case .replace: return functions.replace(expression(arguments[0], root: true), expression(arguments[1], root: true),
                                                expression(arguments[2], root: true))
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
            let start = int4(arguments[1], nonNegative: false)
            guard arguments.count == 3 else { return .call("SUBSTR", [text, start]) }
            return .call("SUBSTR", [text, start, int4(arguments[2], nonNegative: true)])
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
        if dialect == .postgres { return int4(digits, nonNegative: true) }
        let nonNegative = digits.constantValue?.integerValue.map { $0 >= 0 } ?? false
        let count = expression(digits, root: true)
        return nonNegative ? count : functions.clamped(count, lower: "0", upper: nil)
    }

    /// An argument of a PostgreSQL function that takes `INTEGER` (`SUBSTR`'s positions, `ROUND`'s
    /// digits), clamped to that type's range — beyond it lie only positions past any string's end
    /// and digit counts past any number's, so that PostgreSQL answers where SQLite, whose integers
    /// are 64-bit, does — and to 0 and above when `nonNegative`. A NULL stays NULL.
    ///
    /// Constants are clamped here and bound as `Edm.Int32`. Everything else that is not a column or
    /// value of a 32-bit type is cast: integer arithmetic and negation are `bigint` on PostgreSQL
    /// whatever their EDM type (``FunctionTable/checkedArithmetic(_:_:_:)``), and PostgreSQL does
    /// not narrow `bigint` to `integer` by itself.
    private func int4(_ argument: SQLTypedExpression, nonNegative: Bool) -> SQLTerm {
        let lower: Int64 = nonNegative ? 0 : Int64(Int32.min)
        if let constant = argument.constantValue {
            guard let value = constant.integerValue else { return .template(["CAST(NULL AS INTEGER)"]) }
            return .value(.int32(Int32(min(max(value, lower), Int64(Int32.max)))))
        }
        let term = expression(argument, root: true)
        switch (argument.node, argument.type) {
        case (.column, .int32?), (.column, .int16?), (.column, .byte?), (.column, .sbyte?):
            return nonNegative ? functions.clamped(term, lower: "0", upper: nil) : term
        default:
            let clamped = functions.clamped(term, lower: nonNegative ? "0" : "-2147483648", upper: "2147483647")
            return .template(["CAST(", .expression(clamped), " AS INTEGER)"])
        }
    }
}
