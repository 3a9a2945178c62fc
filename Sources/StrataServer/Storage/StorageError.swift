import StrataCore

/// Failures of the storage layer that mean something to a client. Drivers translate their own
/// errors into these so that nothing above the storage layer knows which database answered.
enum StorageError: Error, Sendable, CustomStringConvertible {
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
    /// The database stopped a statement that ran too long or was cancelled.
    case cancelled
    /// Anything else; the detail goes to the log, not to the client.
    case failed(String)

    var description: String {
        switch self {
        case .unavailable(let m): return "database unavailable: \(m)"
        case .uniqueViolation(_, _, let d), .foreignKeyViolation(_, _, let d), .constraintViolation(_, _, let d): return d
        case .invalidValue(let m): return m
        case .cancelled: return "statement cancelled"
        case .failed(let m): return m
        }
    }

    /// The OData error a client sees for this failure.
    var odataError: ODataError {
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
        case .cancelled:
            return ODataError(status: 503, code: "ServiceUnavailable", message: "The query was cancelled; try again.")
        case .failed:
            return .internalError()
        }
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
