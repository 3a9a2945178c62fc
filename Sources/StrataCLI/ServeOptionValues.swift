import ArgumentParser
import Foundation

/// How `strata serve`'s options read environment variables and check values; the messages name
/// the option as the user gave it.
enum ServeOptionValues {
    static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text) else { throw ValidationError("\(name) must be a number, not \(text)") }
        return value
    }

    /// A parser of a variable's text as a whole number.
    static func integer(variable: String) -> @Sendable (String) throws -> Int {
        { try integer($0, variable) }
    }

    static func atLeast(_ minimum: Int, _ value: Int, _ option: String, unit: String = "") throws {
        guard value >= minimum else { throw ValidationError("\(option) must be at least \(minimum)\(unit)") }
    }

    /// `true`, `1` or `yes`, in any case.
    static func isOn(_ text: String) -> Bool {
        ["1", "true", "yes"].contains(text.lowercased())
    }
}
