import Foundation
import StrataCore
import StrataSQL
import StrataStorage

/// A provider as stored: its settings and rules, and its sealed client secret.
package struct StoredProvider: Sendable {
    package var provider: IdentityProvider
    var secret: SealedSecret?
}

/// How a service takes part in hosted sign-in: where apps may be sent back to, and whether people
/// may create their own accounts.
public struct ServiceSignIn: Sendable, Hashable {
    /// Redirect URIs apps may give `/auth/authorize`, compared exactly (RFC 8252 §8.4): custom
    /// schemes (`com.example.app:/signed-in`), https, or http on a loopback host.
    public var redirectURIs: [String]
    /// Whether a first sign-in through a provider, and `POST /auth/sign-up`, create accounts.
    public var allowsSignUp: Bool
    /// The role new accounts get in this service; never `admin`.
    public var signUpRole: String?

    public init(redirectURIs: [String] = [], allowsSignUp: Bool = false, signUpRole: String? = nil) {
        self.redirectURIs = redirectURIs
        self.allowsSignUp = allowsSignUp
        self.signUpRole = signUpRole
    }
}

extension AuthStore {
    private static let providerColumns = SQL.identifiers([
        "name", "kind", "issuer", "client_id", "sealed_secret", "sealed_by", "key_check", "scopes", "display_name", "icon_url",
        "authorization_endpoint", "token_endpoint", "userinfo_endpoint", "pass_token",
    ])

    /// Every provider with its rules, or the one named.
    package func providers(named name: String? = nil) async throws -> [StoredProvider] {
        var providerSQL: SQL = "SELECT \(Self.providerColumns) FROM \(q("identity_providers"))"
        var rulesSQL: SQL = "SELECT \"provider\", \"kind\", \"claim\", \"match\", \"value\", \"output\", \"allow_unverified\" FROM \(q("provider_rules"))"
        if let name {
            providerSQL += " WHERE \"name\" = \(bind: .string(name))"
            rulesSQL += " WHERE \"provider\" = \(bind: .string(name))"
        }
        providerSQL += " ORDER BY \"name\""
        rulesSQL += " ORDER BY \"provider\", \"kind\", \"claim\", \"match\", \"value\", \"output\""
        let providerStatement = SQLStatement(providerSQL, dialect: dialect), rulesStatement = SQLStatement(rulesSQL, dialect: dialect)
        let (providerRows, ruleRows) = try await database.read { connection in
            (try await connection.query(providerStatement, types: Array(repeating: .string, count: 13) + [.boolean]),
             try await connection.query(rulesStatement, types: [.string, .string, .string, .string, .string, .string, .boolean]))
        }
        var roleRules: [String: [ClaimRule]] = [:], claimRules: [String: [ClaimOutput]] = [:]
        for row in ruleRows.rows {
            guard let provider = row[0].stringValue, let kind = row[1].stringValue, let claim = row[2].stringValue,
                  let match = row[3].stringValue, let value = row[4].stringValue, let output = row[5].stringValue else { continue }
            if kind == "role" {
                if let rule = ClaimRule(claim: claim, kind: match, value: value, role: output, allowsUnverifiedEmail: row[6] == .boolean(true)) {
                    roleRules[provider, default: []].append(rule)
                }
            } else if let rule = ClaimOutput(kind: kind, claim: claim, value: value, output: output) {
                claimRules[provider, default: []].append(rule)
            }
        }
        return providerRows.rows.compactMap { row in
            let text = row.map(\.stringValue)
            guard let name = text[0], let kind = text[1].flatMap(IdentityProvider.Kind.init(rawValue:)), let issuer = text[2],
                  let clientID = text[3], let scopes = text[7], let displayName = text[8] else { return nil }
            var secret: SealedSecret?
            if let sealed = text[4], let sealedBy = text[5], let check = text[6] {
                secret = SealedSecret(sealed: sealed, sealedBy: sealedBy, keyCheck: check)
            }
            let provider = IdentityProvider(
                name: name, kind: kind, issuer: issuer, clientID: clientID, scopes: scopes.split(separator: " ").map(String.init),
                displayName: displayName, iconURL: text[9], authorizationEndpoint: text[10], tokenEndpoint: text[11],
                userInfoEndpoint: text[12], passesProviderToken: row[13] == .boolean(true), roleRules: roleRules[name] ?? [],
                claimRules: claimRules[name] ?? [], hasSecret: secret != nil)
            return StoredProvider(provider: provider, secret: secret)
        }
    }

    /// Adds a provider or replaces its settings and rules. `secret` nil keeps the stored secret
    /// (a change of scopes or rules does not need the secret again).
    package func putProvider(_ provider: IdentityProvider, secret: SealedSecret?, now: Date) async throws {
        let providers = q("identity_providers"), rules = q("provider_rules")
        try await write { connection in
            let existing = try await connection.query("SELECT 1 FROM \(providers) WHERE \"name\" = \(bind: .string(provider.name))")
            let optional: (String?) -> ODataValue = { $0.map(ODataValue.string) ?? .null }
            let settings: [(String, ODataValue)] = [
                ("kind", .string(provider.kind.rawValue)), ("issuer", .string(provider.issuer)), ("client_id", .string(provider.clientID)),
                ("scopes", .string(provider.scopes.joined(separator: " "))), ("display_name", .string(provider.displayName)),
                ("icon_url", optional(provider.iconURL)), ("authorization_endpoint", optional(provider.authorizationEndpoint)),
                ("token_endpoint", optional(provider.tokenEndpoint)), ("userinfo_endpoint", optional(provider.userInfoEndpoint)),
                ("pass_token", .boolean(provider.passesProviderToken)),
            ] + (secret.map { [("sealed_secret", .string($0.sealed)), ("sealed_by", .string($0.sealedBy)), ("key_check", .string($0.keyCheck))] } ?? [])
            if existing.rows.isEmpty {
                let columns = SQL.identifiers(["name", "created_at"] + settings.map(\.0))
                let values: [ODataValue] = [.string(provider.name), .int64(Self.seconds(now))] + settings.map(\.1)
                try await connection.execute("INSERT INTO \(providers) (\(columns)) VALUES (\(SQL.binds(values)))")
            } else {
                var assignments: [SQL] = []
                for (column, value) in settings { assignments.append("\(identifier: column) = \(bind: value)") }
                try await connection.execute("UPDATE \(providers) SET \(SQL.joined(assignments, separator: ", ")) WHERE \"name\" = \(bind: .string(provider.name))")
            }
            try await connection.execute("DELETE FROM \(rules) WHERE \"provider\" = \(bind: .string(provider.name))")
            var rows: Set<[ODataValue]> = []
            for rule in provider.roleRules {
                let stored = rule.storedMatch
                rows.insert([.string("role"), .string(rule.claim), .string(stored.kind), .string(stored.value), .string(rule.role),
                             .boolean(rule.allowsUnverifiedEmail)])
            }
            for rule in provider.claimRules {
                let stored = rule.stored
                rows.insert([.string(stored.kind), .string(stored.claim), .string(""), .string(stored.value), .string(stored.output), .boolean(false)])
            }
            for row in rows {
                try await connection.execute("""
                    INSERT INTO \(rules) ("provider", "kind", "claim", "match", "value", "output", "allow_unverified") \
                    VALUES (\(SQL.binds([.string(provider.name)] + row)))
                    """)
            }
        }
    }

    /// Removes a provider, its rules and linked identities, and ends the sign-ins made through it.
    package func removeProvider(_ name: String, now: Date) async throws {
        let providers = q("identity_providers"), sessions = q("auth_sessions")
        let found = try await write { connection -> Bool in
            try await connection.execute("UPDATE \(sessions) SET \"revoked_at\" = \(bind: .int64(Self.seconds(now))) WHERE \"provider\" = \(bind: .string(name)) AND \"revoked_at\" IS NULL")
            let rows = try await connection.query("DELETE FROM \(providers) WHERE \"name\" = \(bind: .string(name)) RETURNING \"name\"")
            return !rows.rows.isEmpty
        }
        guard found else { throw Self.noProvider(name) }
    }

    package static func noProvider(_ name: String) -> ODataError {
        .notFound("There is no identity provider '\(name)'; `strata provider list` shows them.")
    }

    // MARK: Services

    /// The sign-in settings of every service that has any.
    package func serviceSignIns() async throws -> [String: ServiceSignIn] {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \"service\", \"redirect_uris\", \"sign_up\", \"sign_up_role\" FROM \(q("service_sign_in"))",
                types: [.string, .string, .boolean, .string])
        }
        var result: [String: ServiceSignIn] = [:]
        for row in rows.rows {
            guard let service = row[0].stringValue else { continue }
            result[service] = ServiceSignIn(redirectURIs: (row[1].stringValue ?? "").split(separator: "\n").map(String.init),
                                            allowsSignUp: row[2] == .boolean(true), signUpRole: row[3].stringValue)
        }
        return result
    }

    package func saveServiceSignIn(_ service: String, _ settings: ServiceSignIn) async throws {
        let table = q("service_sign_in")
        try await write { connection in
            try await connection.execute("DELETE FROM \(table) WHERE \"service\" = \(bind: .string(service))")
            try await connection.execute("""
                INSERT INTO \(table) ("service", "redirect_uris", "sign_up", "sign_up_role") \
                VALUES (\(SQL.binds([.string(service), .string(settings.redirectURIs.joined(separator: "\n")), .boolean(settings.allowsSignUp),
                                     settings.signUpRole.map(ODataValue.string) ?? .null])))
                """)
        }
    }
}
