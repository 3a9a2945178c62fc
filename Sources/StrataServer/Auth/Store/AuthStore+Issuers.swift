import Foundation
import StrataCore

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

    public init(claim: String, match: Match, role: String) {
        self.claim = claim
        self.match = match
        self.role = role
    }

    /// Whether a claim value (one of a multi-valued claim's values) satisfies the rule.
    func matches(_ value: String) -> Bool {
        switch match {
        case .any: return true
        case .equals(let expected): return value == expected
        case .suffix(let suffix): return value.hasSuffix(suffix)
        }
    }

    public var description: String {
        switch match {
        case .any: return "\(claim) (any value) → \(role)"
        case .equals(let value): return "\(claim) = \(value) → \(role)"
        case .suffix(let suffix): return "\(claim) ends with \(suffix) → \(role)"
        }
    }

    var storedMatch: (kind: String, value: String) {
        switch match {
        case .any: return ("any", "")
        case .equals(let value): return ("equals", value)
        case .suffix(let suffix): return ("suffix", suffix)
        }
    }

    init?(claim: String, kind: String, value: String, role: String) {
        switch kind {
        case "any": self.init(claim: claim, match: .any, role: role)
        case "equals": self.init(claim: claim, match: .equals(value), role: role)
        case "suffix": self.init(claim: claim, match: .suffix(value), role: role)
        default: return nil
        }
    }
}

extension AuthStore {
    /// Every trusted issuer with its rules, or the one named.
    func issuers(named issuer: String? = nil) async throws -> [TrustedIssuer] {
        var issuerSQL = "SELECT \"issuer\", \"audience\", \"jwks\" FROM \(q("trusted_issuers"))"
        var rulesSQL = "SELECT \"issuer\", \"claim\", \"match\", \"value\", \"role\" FROM \(q("issuer_rules"))"
        var binds: [ODataValue] = []
        if let issuer {
            issuerSQL += " WHERE \"issuer\" = \(p(1))"
            rulesSQL += " WHERE \"issuer\" = \(p(1))"
            binds = [.string(issuer)]
        }
        issuerSQL += " ORDER BY \"issuer\""
        rulesSQL += " ORDER BY \"claim\", \"match\", \"value\", \"role\""
        let issuerStatement = SQLStatement(issuerSQL, binds: binds), rulesStatement = SQLStatement(rulesSQL, binds: binds)
        let (issuerRows, ruleRows) = try await database.read { connection in
            (try await connection.query(issuerStatement, types: [.string, .string, .string]),
             try await connection.query(rulesStatement, types: [.string, .string, .string, .string, .string]))
        }
        var rules: [String: [ClaimRule]] = [:]
        for row in ruleRows.rows {
            guard let issuer = row[0].stringValue, let claim = row[1].stringValue, let kind = row[2].stringValue,
                  let value = row[3].stringValue, let role = row[4].stringValue,
                  let rule = ClaimRule(claim: claim, kind: kind, value: value, role: role) else { continue }
            rules[issuer, default: []].append(rule)
        }
        return issuerRows.rows.compactMap { row in
            guard let issuer = row[0].stringValue, let audience = row[1].stringValue, let jwks = row[2].stringValue else { return nil }
            return TrustedIssuer(issuer: issuer, audience: audience, jwks: jwks, rules: rules[issuer] ?? [])
        }
    }

    /// Adds an issuer or replaces its audience and keys; its rules are replaced by the given ones
    /// unless `keepRules` is set.
    func putIssuer(_ issuer: TrustedIssuer, keepRules: Bool, now: Date) async throws {
        let issuers = q("trusted_issuers"), rules = q("issuer_rules")
        try await write { connection in
            let existing = try await connection.query(SQLStatement(
                "SELECT 1 FROM \(issuers) WHERE \"issuer\" = \(p(1))", binds: [.string(issuer.issuer)]))
            if existing.rows.isEmpty {
                try await connection.execute(SQLStatement(
                    "INSERT INTO \(issuers) (\"issuer\", \"audience\", \"jwks\", \"created_at\") VALUES (\(system.placeholders(4)))",
                    binds: [.string(issuer.issuer), .string(issuer.audience), .string(issuer.jwks), .int64(Self.seconds(now))]))
            } else {
                try await connection.execute(SQLStatement(
                    "UPDATE \(issuers) SET \"audience\" = \(p(1)), \"jwks\" = \(p(2)) WHERE \"issuer\" = \(p(3))",
                    binds: [.string(issuer.audience), .string(issuer.jwks), .string(issuer.issuer)]))
            }
            if !keepRules {
                try await connection.execute(SQLStatement(
                    "DELETE FROM \(rules) WHERE \"issuer\" = \(p(1))", binds: [.string(issuer.issuer)]))
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
        let existing = try await connection.query(SQLStatement(
            "SELECT 1 FROM \(rules) WHERE \"issuer\" = \(p(1)) AND \"claim\" = \(p(2)) AND \"match\" = \(p(3)) AND \"value\" = \(p(4)) AND \"role\" = \(p(5))",
            binds: key))
        guard existing.rows.isEmpty else { return }
        try await connection.execute(SQLStatement(
            "INSERT INTO \(rules) (\"issuer\", \"claim\", \"match\", \"value\", \"role\") VALUES (\(system.placeholders(5)))", binds: key))
    }

    func addRule(_ rule: ClaimRule, issuer: String) async throws {
        let issuers = q("trusted_issuers")
        let found = try await write { connection -> Bool in
            let existing = try await connection.query(SQLStatement(
                "SELECT 1 FROM \(issuers) WHERE \"issuer\" = \(p(1))", binds: [.string(issuer)]))
            guard !existing.rows.isEmpty else { return false }
            try await insertRule(rule, issuer: issuer, connection)
            return true
        }
        guard found else { throw Self.noIssuer(issuer) }
    }

    /// Removes a rule; answers whether it existed.
    func removeRule(_ rule: ClaimRule, issuer: String) async throws -> Bool {
        let stored = rule.storedMatch
        let statement = SQLStatement(
            "DELETE FROM \(q("issuer_rules")) WHERE \"issuer\" = \(p(1)) AND \"claim\" = \(p(2)) AND \"match\" = \(p(3)) AND \"value\" = \(p(4)) AND \"role\" = \(p(5)) RETURNING \"role\"",
            binds: [.string(issuer), .string(rule.claim), .string(stored.kind), .string(stored.value), .string(rule.role)])
        let rows = try await write { try await $0.query(statement) }
        return !rows.rows.isEmpty
    }

    /// Removes an issuer, its rules, and the sessions its tokens were exchanged for.
    func removeIssuer(_ issuer: String) async throws {
        let issuers = q("trusted_issuers"), sessions = q("auth_sessions")
        let found = try await write { connection -> Bool in
            try await connection.execute(SQLStatement("DELETE FROM \(sessions) WHERE \"issuer\" = \(p(1))", binds: [.string(issuer)]))
            let rows = try await connection.query(SQLStatement(
                "DELETE FROM \(issuers) WHERE \"issuer\" = \(p(1)) RETURNING \"issuer\"", binds: [.string(issuer)]))
            return !rows.rows.isEmpty
        }
        guard found else { throw Self.noIssuer(issuer) }
    }

    static func noIssuer(_ issuer: String) -> ODataError {
        .notFound("There is no trusted issuer '\(issuer)'.")
    }
}
