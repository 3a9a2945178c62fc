import ArgumentParser
import Foundation
import StrataServer

/// One option of `strata serve`, declared once: its flag, its environment variable, its default,
/// what it means, how its value is read and checked, and where it goes in the configuration.
///
/// ``ServeOptions`` binds each to ArgumentParser (the flag's name and help come from here), and
/// the same rows give the environment fallbacks and the README's table (``ServeOptions/markdownTable``).
struct ServeOption<Value: Sendable>: Sendable {
    /// The long flag without its dashes; nil for a setting made by environment variable only.
    var flag: String?
    /// What the README writes after the flag (`--data DIR`); nil for a switch or an obvious value.
    var valueName: String?
    var variable: String
    var defaultValue: ServeOptionDefault
    /// What the option does, in markdown (`$top` in backticks); the help shows it without them.
    var summary: String
    /// The value given on the command line, nil when none was.
    var given: @Sendable (ServeOptions) -> Value?
    /// Reads the environment variable's text.
    var parse: @Sendable (String) throws -> Value
    /// Checks the value and puts it where it goes.
    var apply: @Sendable (Value, inout ServeSetup) throws -> Void

    /// `--page-size`, or the variable for a setting without a flag: how messages name the option.
    var displayName: String { flag.map { "--" + $0 } ?? variable }

    /// The flag's name for ArgumentParser.
    var name: NameSpecification { .customLong(flag ?? variable) }

    /// The flag's help: the summary as a sentence, the variable, the default.
    var help: ArgumentHelp {
        let plain = summary.replacingOccurrences(of: "`", with: "")
        var text = plain.prefix(1).uppercased() + plain.dropFirst() + ". (env: \(variable)"
        if let shown = defaultValue.text { text += ", default: \(shown.replacingOccurrences(of: "`", with: ""))" }
        return ArgumentHelp(text + ")", valueName: valueName?.lowercased())
    }

    /// Applies the value given on the command line, else the environment's, else leaves the default.
    func resolve(given value: Value?, environment: [String: String], into setup: inout ServeSetup) throws {
        guard let value = try value ?? environment[variable].map(parse) else { return }
        try apply(value, &setup)
    }
}

/// What `strata serve` is told: the server's configuration, and the process-wide event loop count
/// that must be set before anything uses NIO (so it is applied only once every option is valid).
struct ServeSetup: Sendable {
    var configuration = StrataConfiguration()
    var eventLoops: Int?
}

/// An option's default as help and the README show it.
enum ServeOptionDefault: Sendable {
    /// A value as typed: `8080`, `10s` (in backticks in the README).
    case literal(String)
    /// A default that is not a value: `one per core`.
    case described(String)
    /// No default: unset.
    case none

    var text: String? {
        switch self {
        case .literal(let text), .described(let text): return text
        case .none: return nil
        }
    }

    var markdown: String {
        switch self {
        case .literal(let text): return "`\(text)`"
        case .described(let text): return text
        case .none: return "—"
        }
    }
}

/// A row of the table, whatever its value's type.
protocol ServeOptionRow: Sendable {
    var flag: String? { get }
    var valueName: String? { get }
    var variable: String { get }
    var defaultValue: ServeOptionDefault { get }
    var summary: String { get }
    func resolve(_ options: ServeOptions, environment: [String: String], into setup: inout ServeSetup) throws
}

extension ServeOption: ServeOptionRow {
    func resolve(_ options: ServeOptions, environment: [String: String], into setup: inout ServeSetup) throws {
        try resolve(given: given(options), environment: environment, into: &setup)
    }
}
