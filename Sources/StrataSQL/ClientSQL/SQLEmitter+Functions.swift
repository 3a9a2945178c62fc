import StrataCore

/// Functions and casts, written per dialect so that results have the declared EDM type and the
/// same value on both databases.
extension SQLEmitter {
    /// `CAST` targets: SQLite `INTEGER`/`NUMERIC`/`REAL`/`TEXT`; PostgreSQL `BIGINT`/`NUMERIC`/
    /// `DOUBLE PRECISION`/`TEXT`. PostgreSQL rounds when casting a fraction to an integer and
    /// SQLite truncates, so PostgreSQL gets `TRUNC` first. Text that is not a number casts to 0
    /// on SQLite and fails the query on PostgreSQL; the dialect leaves that to the database.
    mutating func cast(_ operand: SQLTypedExpression, to target: SQLCastType) -> String {
        let inner = expression(operand, root: true)
        switch (dialect, target) {
        case (.sqlite, .integer): return "CAST(\(inner) AS INTEGER)"
        case (.sqlite, .decimal): return "CAST(\(inner) AS NUMERIC)"
        case (.sqlite, .double): return "CAST(\(inner) AS REAL)"
        case (_, .text): return "CAST(\(inner) AS TEXT)"
        case (.postgres, .integer):
            let fractional = operand.type.map { $0.isNumeric && !$0.isIntegral } ?? false
            return fractional ? "CAST(TRUNC(\(inner)) AS BIGINT)" : "CAST(\(inner) AS BIGINT)"
        case (.postgres, .decimal): return "CAST(\(inner) AS NUMERIC)"
        case (.postgres, .double): return "CAST(\(inner) AS DOUBLE PRECISION)"
        }
    }

    mutating func call(_ function: SQLFunction, _ arguments: [SQLTypedExpression], distinct: Bool, resultType: EDMPrimitiveType?) -> String {
        switch function {
        case .count, .sum, .avg, .min, .max:
            let operands = Self.isStringExtreme(function, arguments) ? ordinal(arguments[0], root: true) : list(arguments)
            let call = "\(function.rawValue)(\(distinct ? "DISTINCT " : "")\(operands))"
            guard dialect == .postgres else { return call }
            // PostgreSQL sums integers as NUMERIC and averages as NUMERIC; cast back to the declared type.
            switch (function, resultType) {
            case (.sum, .int64?): return "CAST(\(call) AS BIGINT)"
            case (.sum, .double?) where arguments[0].type == .single: return "CAST(\(call) AS DOUBLE PRECISION)"
            case (.avg, _): return "CAST(\(call) AS DOUBLE PRECISION)"
            default: return call
            }
        case .trim:
            return (dialect == .postgres ? "BTRIM(" : "TRIM(") + list(arguments) + ")"
        case .substr:
            return substr(arguments)
        case .round:
            return round(arguments, resultType: resultType)
        case .year, .month, .day, .hour, .minute, .second:
            return datePart(function, arguments[0])
        case .lower, .upper, .length, .ltrim, .rtrim, .replace, .abs, .coalesce, .nullif:
            return "\(function.rawValue)(\(list(arguments)))"
        }
    }

    private mutating func list(_ arguments: [SQLTypedExpression]) -> String {
        var parts: [String] = []
        for argument in arguments { parts.append(expression(argument, root: true)) }
        return parts.joined(separator: ", ")
    }

    /// `SUBSTR(s, start[, length])` as PostgreSQL defines it, on both: the characters at positions
    /// `start ..< start + length` that exist, counting from 1, so a start before 1 shortens the
    /// result and a negative length gives the empty string. (SQLite alone counts a negative start
    /// from the end and a negative length backwards, and PostgreSQL refuses a negative length.)
    private mutating func substr(_ arguments: [SQLTypedExpression]) -> String {
        let text = expression(arguments[0], root: true)
        switch dialect {
        case .postgres:
            // SUBSTR takes INTEGER positions and does not narrow BIGINT implicitly.
            var sql = "SUBSTR(\(text), \(int4(arguments[1]))"
            if arguments.count == 3 { sql += ", GREATEST(\(int4(arguments[2])), 0)" }
            return sql + ")"
        case .sqlite:
            let start = expression(arguments[1], root: true)
            guard arguments.count == 3 else { return "SUBSTR(\(text), MAX(\(start), 1))" }
            // In the order they are written: SQLite numbers `?` by position.
            let startAgain = expression(arguments[1], root: true)
            let length = expression(arguments[2], root: true)
            let startOnceMore = expression(arguments[1], root: true)
            return "SUBSTR(\(text), MAX(\(start), 1), MAX(\(startAgain) + \(length) - MAX(\(startOnceMore), 1), 0))"
        }
    }

    /// An integer argument for a PostgreSQL function that takes `INTEGER`. A value beyond its range
    /// is clamped to it (for `SUBSTR` and `ROUND` such values are past any string's end and any
    /// digit count), so that the cast cannot fail where SQLite, whose integers are 64-bit, answers.
    private mutating func int4(_ argument: SQLTypedExpression) -> String {
        let sql = expression(argument, root: true)
        guard dialect == .postgres, let type = argument.type, type == .int64 else { return sql }
        return "CAST(LEAST(GREATEST(\(sql), -2147483648), 2147483647) AS INTEGER)"
    }

    /// `ROUND(x[, digits])` rounds half away from zero on both. A negative digit count counts as 0,
    /// as SQLite does; PostgreSQL would round to tens. PostgreSQL rounds to a digit count only for
    /// NUMERIC, so a floating point value goes through NUMERIC and back.
    private mutating func round(_ arguments: [SQLTypedExpression], resultType: EDMPrimitiveType?) -> String {
        var value = expression(arguments[0], root: true)
        let floating = resultType == .double && dialect == .postgres
        if floating { value = "CAST(\(value) AS NUMERIC)" }
        var sql = "ROUND(" + value
        if arguments.count == 2 {
            let digits = arguments[1]
            let nonNegative = digits.constantValue?.integerValue.map { $0 >= 0 } ?? false
            let digitsSQL = int4(digits)
            sql += ", " + (nonNegative ? digitsSQL : dialect == .postgres ? "GREATEST(\(digitsSQL), 0)" : "MAX(\(digitsSQL), 0)")
        }
        sql += ")"
        return floating ? "CAST(\(sql) AS DOUBLE PRECISION)" : sql
    }

    /// Date parts as `Edm.Int32`. SQLite stores timestamps as text (`YYYY-MM-DD HH:MM:SS.SSS`, an
    /// offset applied when present), which `strftime` reads; PostgreSQL uses `EXTRACT`, on the UTC
    /// instant for `timestamptz`. Seconds are whole seconds on both (SQLite's `%S` truncates; on
    /// PostgreSQL `FLOOR` drops the fraction that `EXTRACT` returns).
    private mutating func datePart(_ function: SQLFunction, _ argument: SQLTypedExpression) -> String {
        let value = expression(argument, root: true)
        switch dialect {
        case .sqlite:
            let format: String
            switch function {
            case .year: format = "%Y"
            case .month: format = "%m"
            case .day: format = "%d"
            case .hour: format = "%H"
            case .minute: format = "%M"
            default: format = "%S"
            }
            return "CAST(strftime('\(format)', \(value)) AS INTEGER)"
        case .postgres:
            // A bare NULL has no type, and EXTRACT has several signatures: give it one.
            let source = argument.type == .dateTimeOffset ? "(\(value) AT TIME ZONE 'UTC')"
                : argument.type == nil ? "CAST(\(value) AS timestamp)" : value
            let extract = "EXTRACT(\(function.rawValue) FROM \(source))"
            return function == .second ? "CAST(FLOOR(\(extract)) AS INTEGER)" : "CAST(\(extract) AS INTEGER)"
        }
    }
}
