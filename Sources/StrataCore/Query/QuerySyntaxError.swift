import Foundation

/// Builds the 400s of query option parsing so that every message reads alike:
/// `$filter: expected an operand after 'eq' at column 17` (what, where) with an optional `; hint`.
enum QuerySyntaxError {
    static func make(_ option: String, _ what: String, column: Int, hint: String? = nil) -> ODataError {
        var message = "\(option): \(what) at column \(column)"
        if let hint { message += "; \(hint)" }
        return .badRequest(message)
    }

    /// A literal's own message (from ``ODataLiteral``) with the column put after its first clause,
    /// before the advice on how to write it.
    static func literal(_ option: String, _ error: ODataLiteralError, column: Int) -> ODataError {
        let message = error.message
        guard let split = message.range(of: "; ") else { return make(option, message, column: column) }
        return make(option, String(message[..<split.lowerBound]), column: column,
                    hint: String(message[split.upperBound...]))
    }

    /// Source text for a message, shortened so that a huge token cannot blow up the error body.
    static func quoted(_ text: String) -> String {
        let limit = 40
        guard text.count > limit else { return "'\(text)'" }
        return "'\(text.prefix(limit))…'"
    }
}
