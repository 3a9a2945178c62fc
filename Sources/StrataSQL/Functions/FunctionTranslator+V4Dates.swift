import StrataCore

/// V4's date and time functions. Their results are in UTC, as `year` … `second` read date-times:
/// `date` is the date-time at midnight (Strata has no `Edm.Date`), `time` the time of day (to the
/// millisecond on SQLite), `fractionalseconds` the fraction of the second. `totaloffsetminutes` reads the
/// offset a SQLite value was written with; PostgreSQL's `timestamptz` keeps none, so there it is 0.
extension FunctionTranslator {
    func v4DateFunction(_ function: QueryFunction, _ value: SQLTerm, type: EDMPrimitiveType?) -> SQLTerm {
        let sqlite = dialect == .sqlite
        // PostgreSQL: the UTC wall clock of a timestamptz; a timestamp (Edm.DateTime) is one already.
        let utc: SQLTerm = type == .dateTimeOffset ? .template(["(", .expression(value), " AT TIME ZONE 'UTC')"])
            : type == .dateTime ? .template(["CAST(", .expression(value), " AS timestamp)"]) : value
        switch function {
        case .date:
            // The form SQLite stores Strata's date-times in, so it compares with date literals.
            return sqlite ? .template(["strftime('%Y-%m-%d 00:00:00.000', ", .expression(value), ")"])
                          : .template(["date_trunc('day', ", .expression(utc), ")"])
        case .time:
            // SQLite's `%f` is seconds with milliseconds; whole seconds are written without them, as
            // Edm.Time literals and columns are.
            return sqlite ? .template(["(CASE WHEN strftime('%f', ", .expression(value), ") LIKE '%.000' THEN strftime('%H:%M:%S', ",
                                       .expression(value), ") ELSE strftime('%H:%M:%f', ", .expression(value), ") END)"])
                          : .template(["CAST(", .expression(utc), " AS time)"])
        case .fractionalseconds:
            if sqlite {
                return .template(["(CAST(strftime('%f', ", .expression(value), ") AS REAL) - CAST(strftime('%S', ",
                                  .expression(value), ") AS INTEGER))"])
            }
            return .template(["(EXTRACT(SECOND FROM ", .expression(utc), ") - FLOOR(EXTRACT(SECOND FROM ", .expression(utc), ")))"])
        default:
            if sqlite, type == .dateTimeOffset {
                return .template(["CAST(ROUND((julianday(substr(", .expression(value), ", 1, 19)) - julianday(",
                                  .expression(value), ")) * 1440) AS INTEGER)"])
            }
            return .template(["(CASE WHEN ", .expression(value), " IS NULL THEN NULL ELSE 0 END)"])
        }
    }
}
