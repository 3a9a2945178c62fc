import Foundation
import StrataCore
import StrataSQL
import StrataStorage

/// An identity provider whose tokens Strata accepts: its `iss`, the audience its tokens must name,
/// and its signing keys as a JWKS document.
public struct TrustedIssuer: Sendable, Hashable {
    public var issuer: String
    public var audience: String
    /// The JWKS document (`{"keys":[…]}`) as text.
    public var jwks: String
    /// The rule group: which claims give which Strata roles.
    public var rules: [ClaimRule]

    public init(issuer: String, audience: String, jwks: String, rules: [ClaimRule] = []) {
        self.issuer = issuer
        self.audience = audience
        self.jwks = jwks
        self.rules = rules
    }
}

/// One rule of an issuer's rule group, as Access Control Service rule groups had them: an input
/// claim type with a value (exact, by suffix, or any) gives an output role.
///
/// Rules match whole, well-formed values (``matches(_:in:)``): text rules match text only (a
/// number or `true` is not the text "1" or "true"); an `equals` rule also matches one element of a
/// list of texts (`groups`, `roles`), the other kinds no list. A suffix that begins with `@` is an
/// email domain: it matches one well-formed address whose domain is exactly that one
/// (`mallory@evil.org@example.org` is no address at all). Rules on the `email` claim require
/// `email_verified: true` in the token, unless the rule allows unverified addresses.
public struct ClaimRule: Sendable, Hashable, CustomStringConvertible {
    public enum Match: Sendable, Hashable {
        /// Any value of the claim.
        case any
        /// The value, exactly.
        case equals(String)
        /// Values ending with this text (`@example.org`).
        case suffix(String)
    }

    public var claim: String
    public var match: Match
    public var role: String
    /// For rules on the `email` claim: whether addresses the provider has not verified
    /// (`email_verified` absent or false) count too. Off by default: anyone can type any address.
    public var allowsUnverifiedEmail: Bool

    public init(claim: String, match: Match, role: String, allowsUnverifiedEmail: Bool = false) {
        self.claim = claim
        self.match = match
        self.role = role
        self.allowsUnverifiedEmail = allowsUnverifiedEmail
    }

    /// The claim the rules treat as an email address.
    static let emailClaim = "email"

    /// Whether the claim's value in a token (with the token's other claims) satisfies the rule.
    func matches(_ value: JSONValue?, in claims: JSONObject) -> Bool {
        guard let value else { return false }
        if claim == Self.emailClaim {
            guard allowsUnverifiedEmail || Self.isVerified(claims["email_verified"]) else { return false }
            // One well-formed address, whatever the match.
            guard case .string(let address) = value, EmailAddress(address) != nil else { return false }
        }
        switch (match, value) {
        case (_, .null): return false
        case (.any, .string(let text)): return !text.isEmpty
        case (.any, .array(let items)): return !items.isEmpty
        case (.any, _): return true
        case (.equals(let expected), .string(let text)): return text == expected
        case (.equals(let expected), .array(let items)): return claim != Self.emailClaim && items.contains(.string(expected))
        case (.suffix(let suffix), .string(let text)):
            guard suffix.hasPrefix("@") else { return text.hasSuffix(suffix) }
            guard let address = EmailAddress(text) else { return false }
            return "@" + address.domain == suffix.lowercased()
        default: return false
        }
    }

    /// `email_verified` as providers send it: JSON `true`, or the text "true" (some send strings).
    private static func isVerified(_ value: JSONValue?) -> Bool {
        value == .bool(true) || value == .string("true")
    }

    public var description: String {
        let unverified = allowsUnverifiedEmail ? " (unverified addresses too)" : ""
        switch match {
        case .any: return "\(claim) (any value) → \(role)\(unverified)"
        case .equals(let value): return "\(claim) = \(value) → \(role)\(unverified)"
        case .suffix(let suffix) where suffix.hasPrefix("@"): return "\(claim) in domain \(suffix.dropFirst()) → \(role)\(unverified)"
        case .suffix(let suffix): return "\(claim) ends with \(suffix) → \(role)\(unverified)"
        }
    }

    package var storedMatch: (kind: String, value: String) {
        switch match {
        case .any: return ("any", "")
        case .equals(let value): return ("equals", value)
        case .suffix(let suffix): return ("suffix", suffix)
        }
    }

    package init?(claim: String, kind: String, value: String, role: String, allowsUnverifiedEmail: Bool = false) {
        switch kind {
        case "any": self.init(claim: claim, match: .any, role: role, allowsUnverifiedEmail: allowsUnverifiedEmail)
        case "equals": self.init(claim: claim, match: .equals(value), role: role, allowsUnverifiedEmail: allowsUnverifiedEmail)
        case "suffix": self.init(claim: claim, match: .suffix(value), role: role, allowsUnverifiedEmail: allowsUnverifiedEmail)
        default: return nil
        }
    }
}

/// An email address as rules check it: one `@`, a local part, and a domain of dot-separated labels
/// of letters, digits and hyphens. Deliberately strict: a rule that gives a role must not be
/// satisfied by text that only contains something address-like.
struct EmailAddress {
    let local: Substring
    /// Lower-cased.
    let domain: String

    init?(_ text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64, !parts[1].isEmpty, parts[1].count <= 253,
              !parts[0].contains(where: { $0.isWhitespace || $0.isNewline || $0 == "\u{0}" }) else { return nil }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        }) else { return nil }
        local = parts[0]
        domain = parts[1].lowercased()
    }
}

extension AuthStore {
    /// Every trusted issuer with its rules, or the one named.
    package func issuers(named issuer: String? = nil) async throws -> [TrustedIssuer] {
        var issuerSQL: SQL = "SELECT \"issuer\", \"audience\", \"jwks\" FROM \(q("trusted_issuers"))"
        var rulesSQL: SQL = "SELECT \"issuer\", \"claim\", \"match\", \"value\", \"role\", \"allow_unverified\" FROM \(q("issuer_rules"))"
        if let issuer {
            issuerSQL += " WHERE \"issuer\" = \(bind: .string(issuer))"
            rulesSQL += " WHERE \"issuer\" = \(bind: .string(issuer))"
        }
        issuerSQL += " ORDER BY \"issuer\""
        rulesSQL += " ORDER BY \"claim\", \"match\", \"value\", \"role\""
        let issuerStatement = SQLStatement(issuerSQL, dialect: dialect), rulesStatement = SQLStatement(rulesSQL, dialect: dialect)
        let (issuerRows, ruleRows) = try await database.read { connection in
            (try await connection.query(issuerStatement, types: [.string, .string, .string]),
             try await connection.query(rulesStatement, types: [.string, .string, .string, .string, .string, .boolean]))
        }
        var rules: [String: [ClaimRule]] = [:]
        for row in ruleRows.rows {
            guard let issuer = row[0].stringValue, let claim = row[1].stringValue, let kind = row[2].stringValue,
                  let value = row[3].stringValue, let role = row[4].stringValue,
                  let rule = ClaimRule(claim: claim, kind: kind, value: value, role: role,
                                       allowsUnverifiedEmail: row[5] == .boolean(true)) else { continue }
            rules[issuer, default: []].append(rule)
        }
        return issuerRows.rows.compactMap { row in
            guard let issuer = row[0].stringValue, let audience = row[1].stringValue, let jwks = row[2].stringValue else { return nil }
            return TrustedIssuer(issuer: issuer, audience: audience, jwks: jwks, rules: rules[issuer] ?? [])
        }
    }

    /// Adds an issuer or replaces its audience and keys; its rules are replaced by the given ones
    /// unless `keepRules` is set.
    package func putIssuer(_ issuer: TrustedIssuer, keepRules: Bool, now: Date) async throws {
        let issuers = q("trusted_issuers"), rules = q("issuer_rules")
        try await write { connection in
            let existing = try await connection.query("SELECT 1 FROM \(issuers) WHERE \"issuer\" = \(bind: .string(issuer.issuer))")
            if existing.rows.isEmpty {
                try await connection.execute("INSERT INTO \(issuers) (\"issuer\", \"audience\", \"jwks\", \"created_at\") VALUES (\(SQL.binds([.string(issuer.issuer), .string(issuer.audience), .string(issuer.jwks), .int64(Self.seconds(now))])))")
            } else {
                try await connection.execute("UPDATE \(issuers) SET \"audience\" = \(bind: .string(issuer.audience)), \"jwks\" = \(bind: .string(issuer.jwks)) WHERE \"issuer\" = \(bind: .string(issuer.issuer))")
            }
            if !keepRules {
                try await connection.execute("DELETE FROM \(rules) WHERE \"issuer\" = \(bind: .string(issuer.issuer))")
            }
            for rule in issuer.rules {
                try await insertRule(rule, issuer: issuer.issuer, connection)
            }
        }
    }

    private func insertRule(_ rule: ClaimRule, issuer: String, _ connection: any DatabaseConnection) async throws {
        let rules = q("issuer_rules")
        let stored = rule.storedMatch
        let key: [ODataValue] = [.string(issuer), .string(rule.claim), .string(stored.kind), .string(stored.value), .string(rule.role)]
        let existing = try await connection.query(
            "SELECT 1 FROM \(rules) WHERE \"issuer\" = \(bind: key[0]) AND \"claim\" = \(bind: key[1]) AND \"match\" = \(bind: key[2]) AND \"value\" = \(bind: key[3]) AND \"role\" = \(bind: key[4])")
        guard existing.rows.isEmpty else { return }
        try await connection.execute(
            "INSERT INTO \(rules) (\"issuer\", \"claim\", \"match\", \"value\", \"role\", \"allow_unverified\") VALUES (\(SQL.binds(key + [.boolean(rule.allowsUnverifiedEmail)])))")
    }

    package func addRule(_ rule: ClaimRule, issuer: String) async throws {
        let issuers = q("trusted_issuers")
        let found = try await write { connection -> Bool in
            let existing = try await connection.query("SELECT 1 FROM \(issuers) WHERE \"issuer\" = \(bind: .string(issuer))")
            guard !existing.rows.isEmpty else { return false }
            try await insertRule(rule, issuer: issuer, connection)
            return true
        }
        guard found else { throw Self.noIssuer(issuer) }
    }

    /// Removes a rule; answers whether it existed.
    package func removeRule(_ rule: ClaimRule, issuer: String) async throws -> Bool {
        let stored = rule.storedMatch
        let statement = SQLStatement("DELETE FROM \(q("issuer_rules")) WHERE \"issuer\" = \(bind: .string(issuer)) AND \"claim\" = \(bind: .string(rule.claim)) AND \"match\" = \(bind: .string(stored.kind)) AND \"value\" = \(bind: .string(stored.value)) AND \"role\" = \(bind: .string(rule.role)) RETURNING \"role\"", dialect: dialect)
        let rows = try await write { try await $0.query(statement) }
        return !rows.rows.isEmpty
    }

    /// Removes an issuer, its rules, and the sessions its tokens were exchanged for.
    package func removeIssuer(_ issuer: String) async throws {
        let issuers = q("trusted_issuers"), sessions = q("auth_sessions")
        let found = try await write { connection -> Bool in
            try await connection.execute("DELETE FROM \(sessions) WHERE \"issuer\" = \(bind: .string(issuer))")
            let rows = try await connection.query("DELETE FROM \(issuers) WHERE \"issuer\" = \(bind: .string(issuer)) RETURNING \"issuer\"")
            return !rows.rows.isEmpty
        }
        guard found else { throw Self.noIssuer(issuer) }
    }

    static func noIssuer(_ issuer: String) -> ODataError {
        .notFound("There is no trusted issuer '\(issuer)'.")
    }
}
