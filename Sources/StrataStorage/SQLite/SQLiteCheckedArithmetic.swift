import VaporCSQLite

/// Integer arithmetic that fails on overflow, as PostgreSQL's does: `strata_add`, `strata_sub`,
/// `strata_mul`, `strata_div` and `strata_neg`, registered on every SQLite connection.
///
/// SQLite quietly turns an integer result that leaves the 64-bit range into a floating-point one
/// (`9223372036854775807 + 1` is `9.223372036854776e18`), so a filter that overflows answered rows
/// on SQLite and a 400 on PostgreSQL. The planners write integer arithmetic on SQLite through these
/// functions (and through `bigint` on PostgreSQL, so that both compute in 64 bits); an overflow is
/// the error `integer overflow`, which the server answers with a 400 on both databases.
/// Non-integer operands get SQLite's own floating-point arithmetic, NULL gives NULL.
enum SQLiteCheckedArithmetic {
    /// The message SQLite's own `abs()` uses for the same failure, so both map alike.
    static let overflowMessage = "integer overflow"

    static func register(on connection: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite_nio_sqlite3_create_function_v2(connection, "strata_add", 2, flags, nil, { context, _, values in
            SQLiteCheckedArithmetic.binary(context, values, integer: { $0.addingReportingOverflow($1) }, real: +)
        }, nil, nil, nil)
        sqlite_nio_sqlite3_create_function_v2(connection, "strata_sub", 2, flags, nil, { context, _, values in
            SQLiteCheckedArithmetic.binary(context, values, integer: { $0.subtractingReportingOverflow($1) }, real: -)
        }, nil, nil, nil)
        sqlite_nio_sqlite3_create_function_v2(connection, "strata_mul", 2, flags, nil, { context, _, values in
            SQLiteCheckedArithmetic.binary(context, values, integer: { $0.multipliedReportingOverflow(by: $1) }, real: *)
        }, nil, nil, nil)
        sqlite_nio_sqlite3_create_function_v2(connection, "strata_div", 2, flags, nil, { context, _, values in
            // Integer division truncates, as SQLite's and PostgreSQL's do; by zero is NULL (the planners
            // also wrap the divisor in NULLIF).
            SQLiteCheckedArithmetic.binary(context, values, integer: { $1 == 0 ? nil : $0.dividedReportingOverflow(by: $1) }, real: /)
        }, nil, nil, nil)
        sqlite_nio_sqlite3_create_function_v2(connection, "strata_neg", 1, flags, nil, { context, _, values in
            guard let context, let value = values?[0] else { return }
            switch sqlite_nio_sqlite3_value_numeric_type(value) {
            case SQLITE_INTEGER:
                let result = Int64(0).subtractingReportingOverflow(sqlite_nio_sqlite3_value_int64(value))
                if result.overflow { return sqlite_nio_sqlite3_result_error(context, SQLiteCheckedArithmetic.overflowMessage, -1) }
                sqlite_nio_sqlite3_result_int64(context, result.partialValue)
            case SQLITE_NULL:
                sqlite_nio_sqlite3_result_null(context)
            default:
                sqlite_nio_sqlite3_result_double(context, -sqlite_nio_sqlite3_value_double(value))
            }
        }, nil, nil, nil)
    }

    private static func binary(
        _ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?,
        integer: (Int64, Int64) -> (partialValue: Int64, overflow: Bool)?, real: (Double, Double) -> Double
    ) {
        guard let context, let values, let lhs = values[0], let rhs = values[1] else { return }
        let (left, right) = (sqlite_nio_sqlite3_value_numeric_type(lhs), sqlite_nio_sqlite3_value_numeric_type(rhs))
        if left == SQLITE_NULL || right == SQLITE_NULL { return sqlite_nio_sqlite3_result_null(context) }
        guard left == SQLITE_INTEGER, right == SQLITE_INTEGER else {
            return sqlite_nio_sqlite3_result_double(context, real(sqlite_nio_sqlite3_value_double(lhs), sqlite_nio_sqlite3_value_double(rhs)))
        }
        guard let result = integer(sqlite_nio_sqlite3_value_int64(lhs), sqlite_nio_sqlite3_value_int64(rhs)) else {
            return sqlite_nio_sqlite3_result_null(context)
        }
        if result.overflow { return sqlite_nio_sqlite3_result_error(context, SQLiteCheckedArithmetic.overflowMessage, -1) }
        sqlite_nio_sqlite3_result_int64(context, result.partialValue)
    }
}
