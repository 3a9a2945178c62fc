import Foundation
import StrataCore

/// Failures of the storage layer that mean something to a client. Drivers translate their own
/// errors into these so that nothing above the storage layer knows which database answered.
package enum StorageError: Error, Sendable, CustomStringConvertible {
    /// The database cannot be reached or opened.
    case unavailable(String)
    /// A unique or primary key constraint refused the write.
    case uniqueViolation(constraint: String?, table: String?, detail: String)
    /// A foreign key constraint refused the write.
    case foreignKeyViolation(constraint: String?, table: String?, detail: String)
    /// A NOT NULL or CHECK constraint refused the write.
    case constraintViolation(constraint: String?, table: String?, detail: String)
    /// A value could not be stored in or read from a column as its declared type.
    case invalidValue(String)
    /// Integer arithmetic left the 64-bit range (on both databases, see `SQLiteCheckedArithmetic`).
    case integerOverflow
    /// The database stopped a statement because nobody waits for it any more (the client hung up).
    case cancelled
    /// The database stopped a statement that ran longer than the statement timeout.
    case timedOut(Duration)
    /// The database refused the statement to the role or file Strata uses: a read-only role serving
    /// someone else's database, a read-only SQLite file.
    case permissionDenied(String)
    /// The server is shutting down and stopped the statement, or refused to start it.
    case shuttingDown
    /// The caller has as many scans running and waiting as it may (``ScanAdmission``).
    case overloaded(perCaller: Int)
    /// A query returned more bytes than ``StatementLimits/maxResultBytes``.
    case resultTooLarge(Int)
    /// Anything else; the detail goes to the log, not to the client.
    case failed(String)

    package var description: String {
        switch self {
        case .unavailable(let m): return "database unavailable: \(m)"
        case .uniqueViolation(_, _, let d), .foreignKeyViolation(_, _, let d), .constraintViolation(_, _, let d): return d
        case .invalidValue(let m): return m
        case .integerOverflow: return "integer overflow"
        case .cancelled: return "statement cancelled"
        case .timedOut(let limit): return "statement stopped after the statement timeout (\(limit))"
        case .permissionDenied(let m): return m
        case .shuttingDown: return "statement stopped: the server is shutting down"
        case .overloaded(let limit): return "more than \(limit) scans of one caller at once, and more waiting"
        case .resultTooLarge(let limit): return "a query returned more than \(limit) bytes"
        case .failed(let m): return m
        }
    }

    /// The OData error a client sees for this failure.
    package var odataError: ODataError {
        switch self {
        case .unavailable:
            return .serviceUnavailable("The database is not reachable right now; try again shortly.")
        case .uniqueViolation(let constraint, let table, let detail):
            return ODataError(status: 409, code: "Conflict",
                              message: "A row with the same key already exists\(Self.where(constraint, table)): \(detail)")
        case .foreignKeyViolation(let constraint, let table, let detail):
            return ODataError(status: 409, code: "Conflict",
                              message: "The change breaks a relationship\(Self.where(constraint, table)): \(detail)")
        case .constraintViolation(let constraint, let table, let detail):
            return ODataError(status: 400, code: "ConstraintViolation",
                              message: "The change violates a constraint\(Self.where(constraint, table)): \(detail)")
        case .invalidValue(let message):
            return .badRequest(message)
        case .integerOverflow:
            return ODataError(status: 400, code: "IntegerOverflow",
                              message: "A computed whole number left the 64-bit range (-9223372036854775808 to 9223372036854775807); integer arithmetic does not wrap or round. Use smaller values, or cast to Edm.Double or Edm.Decimal first.")
        case .cancelled:
            return ODataError(status: 503, code: "ServiceUnavailable", message: "The query was cancelled; try again.")
        case .timedOut(let limit):
            // A 4xx: the same query would run as long again. The limit is the server's, per service.
            return ODataError(status: 400, code: "StatementTimeout",
                              message: "The query ran longer than this service allows (\(Self.seconds(limit))) and was stopped. Ask for less: add $filter conditions on indexed properties, a smaller $top, or LIMIT.")
        case .permissionDenied(let message):
            // The database's own refusal, not the access rules': say it is the server's database
            // connection that may not do this, so that the caller asks the operator, not for a token.
            return ODataError(status: 403, code: "Forbidden",
                              message: "The database refused this to the server (\(message)): the database role or file this service is served with may not do it. Reads may still work; ask the operator for write access.")
        case .resultTooLarge(let limit):
            return ODataError(status: 400, code: "ResultTooLarge",
                              message: "The query returns more than \(limit) bytes, the most the server holds for one answer it builds whole. Ask for fewer rows (LIMIT and OFFSET) or columns, or read whole tables through $tables, which streams.")
        case .overloaded(let limit):
            return ODataError(status: 429, code: "TooManyRequests",
                              message: "This caller has more queries running and waiting than the server runs for one caller at once (\(limit) at a time). Wait for them to finish, or send fewer at once.")
        case .shuttingDown:
            return ODataError(status: 503, code: "ServiceUnavailable", message: "The server is shutting down; send the request again to reach a running server.")
        case .failed:
            return .internalError()
        }
    }

    /// Refuses text with the NUL character: PostgreSQL cannot store it in any text column, so it is
    /// refused on both databases alike, before anything is written or compared.
    static func requireNoNUL(_ text: String) throws(StorageError) {
        if text.utf8.contains(0) {
            throw .invalidValue("Text values may not contain the NUL character (U+0000, %00 in a URL, \\u0000 in JSON); remove it.")
        }
    }

    /// `2.5 s`, `30 s`: how the limit is written in messages.
    package static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let fraction = Double(attoseconds) / 1e18
        if fraction == 0 { return "\(seconds) s" }
        return String(format: "%.3g s", Double(seconds) + fraction)
    }

    private static func `where`(_ constraint: String?, _ table: String?) -> String {
        switch (constraint, table) {
        case let (c?, t?): return " (constraint \(c) on table \(t))"
        case let (c?, nil): return " (constraint \(c))"
        case let (nil, t?): return " (table \(t))"
        default: return ""
        }
    }
}
