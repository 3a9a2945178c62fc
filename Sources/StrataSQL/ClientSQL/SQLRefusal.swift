import StrataCore

/// Builds the errors that refuse client SQL.
///
/// Every refusal is an ``ODataError`` with status 400 (403 for a table the caller may not read),
/// a code that tells the kind of problem, and a message of the form
/// `<what is not allowed> at line L, column C; <what to do instead>`.
enum SQLRefusal {
    /// The text is not well formed: an unterminated string, a missing parenthesis.
    static let syntaxCode = "SQLSyntaxError"
    /// The text is well formed SQL but outside Strata's dialect: DML, comments, UNION, functions not on the list.
    static let notAllowedCode = "SQLNotAllowed"
    /// A table, column, alias or parameter that does not exist or is ambiguous.
    static let unknownNameCode = "SQLUnknownName"
    /// Operands whose types do not fit the operator or function.
    static let typeCode = "SQLTypeMismatch"
    /// The query is longer, deeper or larger than the configured ``SQLLimits``.
    static let tooLargeCode = "SQLTooLarge"

    static func syntax(_ what: String, at location: SQLSourceLocation, hint: String? = nil) -> ODataError {
        make(syntaxCode, what, location, hint)
    }

    static func notAllowed(_ what: String, at location: SQLSourceLocation, hint: String? = nil) -> ODataError {
        make(notAllowedCode, what, location, hint)
    }

    static func unknownName(_ what: String, at location: SQLSourceLocation, hint: String? = nil) -> ODataError {
        make(unknownNameCode, what, location, hint)
    }

    static func type(_ what: String, at location: SQLSourceLocation, hint: String? = nil) -> ODataError {
        make(typeCode, what, location, hint)
    }

    static func tooLarge(_ what: String, at location: SQLSourceLocation, hint: String? = nil) -> ODataError {
        make(tooLargeCode, what, location, hint)
    }

    /// The caller's rights do not include reading the table: 403, like the OData endpoints answer.
    static func forbidden(table: String, at location: SQLSourceLocation) -> ODataError {
        ODataError(status: 403, code: "Forbidden", message: "reading table \(table) is not allowed for this caller at \(location)")
    }

    private static func make(_ code: String, _ what: String, _ location: SQLSourceLocation, _ hint: String?) -> ODataError {
        var message = "\(what) at \(location)"
        if let hint { message += "; \(hint)" }
        return .badRequest(message, code: code)
    }
}
