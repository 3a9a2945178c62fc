import StrataCore

/// A rule that makes one claim the app receives from a provider's claims: Access Control Service's
/// "pass through" rule, a rename, or a constant.
///
/// Output claims are in Strata's access token (`claims`), in `/auth/me` and in StrataClient's
/// `AuthSession.claims`, and row filters read them as `$claims.NAME`. Text, numbers and Booleans
/// pass as text; a list passes as its JSON text. `sub` is always the account's name and cannot be set.
public enum ClaimOutput: Sendable, Hashable, CustomStringConvertible {
    /// Copy a claim under its own name.
    case pass(String)
    /// Copy a claim under another name (`email` → `mail`).
    case rename(String, to: String)
    /// A constant claim for everyone who signs in with the provider.
    case set(String, value: String)

    /// The claims these rules make from a provider's claims, in rule order (a later rule wins).
    static func apply(_ rules: [ClaimOutput], to claims: JSONObject) -> [String: String] {
        var output: [String: String] = [:]
        for rule in rules {
            switch rule {
            case .pass(let name): if let value = claims[name].flatMap(text) { output[name] = value }
            case .rename(let name, let to): if let value = claims[name].flatMap(text) { output[to] = value }
            case .set(let name, let value): output[name] = value
            }
        }
        return output
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number
        case .array, .object: return value.jsonString
        case .null: return nil
        }
    }

    /// The claim this rule writes.
    var output: String {
        switch self {
        case .pass(let name), .rename(_, to: let name), .set(let name, _): return name
        }
    }

    package func validate() throws(ODataError) {
        let names: [String]
        switch self {
        case .pass(let name): names = [name]
        case .rename(let from, let to): names = [from, to]
        case .set(let name, let value):
            names = [name]
            guard value.count <= 512 else { throw .badRequest("A constant claim's value has at most 512 characters.") }
        }
        for name in names {
            guard !name.isEmpty, name.count <= 256, !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw .badRequest("A claim name has 1 to 256 characters and no spaces; '\(name)' does not.")
            }
        }
        guard output != "sub" else {
            throw .badRequest("The claim sub is the account's name and cannot be written by a rule; pass the provider's sub under another name.")
        }
    }

    /// Stored as (kind, claim, value, output) in `provider_rules`.
    var stored: (kind: String, claim: String, value: String, output: String) {
        switch self {
        case .pass(let name): return ("pass", name, "", name)
        case .rename(let from, let to): return ("rename", from, "", to)
        case .set(let name, let value): return ("set", "", value, name)
        }
    }

    init?(kind: String, claim: String, value: String, output: String) {
        switch kind {
        case "pass": self = .pass(claim)
        case "rename": self = .rename(claim, to: output)
        case "set": self = .set(output, value: value)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .pass(let name): return "pass \(name)"
        case .rename(let from, let to): return "rename \(from) → \(to)"
        case .set(let name, let value): return "set \(name) = \(value)"
        }
    }
}
