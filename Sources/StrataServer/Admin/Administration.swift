import Foundation
import StrataCore
import StrataBlobs
import StrataIdentity
import StrataOData

/// The account, grant and issuer operations of `strata user|grant|revoke|issuer` and of `/admin/…`.
///
/// Both front ends call these, so they check the same things: names, passwords, that services and
/// tables exist, that row filters bind against their table, that a JWKS document holds usable keys.
/// Every change is one transaction in the system database. A server sees changes of accounts,
/// roles and issuers on its next request; anonymous access and table grants on its next request
/// when made through its own `/admin`, otherwise within ``AuthSettings/cacheMaxAge``.
public struct Administration: Sendable {
    let store: AuthStore
    let hasher: PasswordHasher
    /// The model of a service, or nil when there is none by that name.
    let model: @Sendable (String) async throws -> ServiceModel?
    let now: @Sendable () -> Date
    /// The token signing keys (`strata keys`, `/admin/keys`); nil where none are administered.
    var signingKeys: SigningKeys? = nil

    // MARK: Accounts

    /// Creates an account with a password and roles.
    public func addUser(_ username: String, password: String, roles: [RoleAssignment]) async throws {
        try AuthNames.checkUsername(username)
        for assignment in roles { try await check(assignment) }
        let hash = try await hasher.hash(password)
        try await store.createAccount(username, passwordHash: hash, roles: roles, now: now())
    }

    public func listUsers() async throws -> [AccountSummary] {
        try await store.listAccounts()
    }

    /// Sets a new password; the account's existing tokens and sign-ins end.
    public func setPassword(_ username: String, password: String) async throws {
        let hash = try await hasher.hash(password)
        try await store.setPassword(username, passwordHash: hash, now: now())
    }

    /// Ends every sign-in of an account: its access and refresh tokens stop working; the password stays.
    public func signOutEverywhere(_ username: String) async throws {
        try await store.endSessions(username, now: now())
    }

    /// Removes an account, its roles and its sign-ins.
    public func removeUser(_ username: String) async throws {
        try await store.removeAccount(username)
    }

    /// Gives an account a role (for every service, or one); answers false when it held it already.
    @discardableResult
    public func grantRole(_ assignment: RoleAssignment, to username: String) async throws -> Bool {
        try await check(assignment)
        return try await store.addRole(username, assignment)
    }

    /// Takes a role from an account; answers false when it did not hold it.
    @discardableResult
    public func revokeRole(_ assignment: RoleAssignment, from username: String) async throws -> Bool {
        try await store.removeRole(username, assignment)
    }

    private func check(_ assignment: RoleAssignment) async throws {
        try AuthNames.checkRole(assignment.role)
        if let service = assignment.service { _ = try await requireModel(service) }
    }

    // MARK: Table rights

    /// Grants a role actions on a table (nil: every table) of a service, optionally only on the rows
    /// a filter selects. Replaces earlier grants of the same actions on the same table.
    public func grant(role: String, service: String, table: String?, actions: [TableAction], rowFilter: String?) async throws {
        try AuthNames.checkRole(role)
        guard !actions.isEmpty else { throw ODataError.badRequest("Name at least one action: read, insert, update or delete.") }
        let model = try await requireModel(service)
        if let table, model.entitySet(named: table) == nil {
            throw ODataError.notFound("The service \(service) has no table \(table). Tables: \(model.entitySets.map(\.name).joined(separator: ", ")).")
        }
        if let rowFilter {
            guard let table else {
                throw ODataError.badRequest("A row filter needs a table to apply to; name it with the grant.")
            }
            try GrantRowFilter.validate(rowFilter, entitySet: table, model: model)
        }
        try await store.putGrants(actions.map { TableGrant(role: role, service: service, table: table, action: $0, rowFilter: rowFilter) })
    }

    /// Removes a role's grants on a service (all, or those of one table and/or some actions).
    /// Answers how many grants were removed.
    @discardableResult
    public func revoke(role: String, service: String, table: String?, actions: [TableAction]?) async throws -> Int {
        try await store.removeGrants(role: role, service: service, table: table, actions: actions)
    }

    public func listGrants(service: String? = nil) async throws -> [TableGrant] {
        try await store.listGrants(service: service)
    }

    /// Sets what callers without credentials may do in a service.
    public func setAnonymousAccess(_ access: AnonymousAccess, service: String) async throws {
        _ = try await requireModel(service)
        try await store.setAnonymousAccess(service, access)
    }

    /// The anonymous access of every service that has a setting; others allow nothing.
    public func anonymousAccess() async throws -> [String: AnonymousAccess] {
        try await store.listAnonymousAccess()
    }

    // MARK: Container rights

    /// Grants a role actions on a container (nil: every container). Grants held already stay.
    public func grantContainer(role: String, container: String?, actions: [BlobAction]) async throws {
        try AuthNames.checkRole(role)
        guard !actions.isEmpty else { throw ODataError.badRequest("Name at least one action: read, write or delete.") }
        if let container { try await requireContainer(container) }
        try await store.putContainerGrants(actions.map { ContainerGrant(role: role, container: container, action: $0) })
    }

    /// Removes a role's grants on a container (nil: the every-container grants), all or some actions.
    /// Answers how many were removed.
    @discardableResult
    public func revokeContainer(role: String, container: String?, actions: [BlobAction]?) async throws -> Int {
        try await store.removeContainerGrants(role: role, container: container, actions: actions)
    }

    public func listContainerGrants() async throws -> [ContainerGrant] {
        try await store.listContainerGrants()
    }

    private func requireContainer(_ name: String) async throws {
        try BlobNames.checkContainer(name)
        guard try await BlobCatalog(system: store.system).container(name) != nil else {
            throw ODataError.notFound("There is no container named '\(name)'.")
        }
    }

    func requireModel(_ service: String) async throws -> ServiceModel {
        guard service != AuthStore.every, let model = try await model(service) else {
            throw ODataError.notFound("There is no service named '\(service)'.")
        }
        return model
    }

    // MARK: Trusted issuers

    /// Adds a trusted issuer, or replaces its audience and keys (and its rules, when `rules` is not nil).
    public func putIssuer(issuer: String, audience: String, jwks: String, rules: [ClaimRule]? = nil) async throws {
        guard !issuer.isEmpty, issuer.count <= 512 else { throw ODataError.badRequest("The issuer is 1 to 512 characters.") }
        guard !audience.isEmpty, audience.count <= 512 else { throw ODataError.badRequest("The audience is 1 to 512 characters.") }
        try await Self.checkJWKS(jwks)
        for rule in rules ?? [] { try Self.check(rule) }
        try await store.putIssuer(TrustedIssuer(issuer: issuer, audience: audience, jwks: jwks, rules: rules ?? []),
                                  keepRules: rules == nil, now: now())
    }

    public func listIssuers() async throws -> [TrustedIssuer] {
        try await store.issuers()
    }

    /// Removes a trusted issuer with its rules; tokens exchanged for its tokens stop working.
    public func removeIssuer(_ issuer: String) async throws {
        try await store.removeIssuer(issuer)
    }

    public func addRule(_ rule: ClaimRule, issuer: String) async throws {
        try Self.check(rule)
        try await store.addRule(rule, issuer: issuer)
    }

    @discardableResult
    public func removeRule(_ rule: ClaimRule, issuer: String) async throws -> Bool {
        try await store.removeRule(rule, issuer: issuer)
    }

    static func check(_ rule: ClaimRule) throws(ODataError) {
        try AuthNames.checkRole(rule.role)
        guard !rule.claim.isEmpty, rule.claim.count <= 256 else { throw .badRequest("A rule's claim type is 1 to 256 characters.") }
        switch rule.match {
        case .any: break
        case .equals(let value), .suffix(let value):
            guard !value.isEmpty, value.count <= 512 else { throw .badRequest("A rule's claim value is 1 to 512 characters.") }
        }
    }

    /// A JWKS document must parse and hold at least one RSA or P-256 EC key with a `kid`.
    static func checkJWKS(_ jwks: String) async throws {
        guard jwks.utf8.count <= 256 * 1024, case .object(let document)? = try? JSONValue.parse(jwks),
              let keys = document["keys"]?.arrayValue, !keys.isEmpty else {
            throw ODataError.badRequest("The JWKS must be a JSON object with a non-empty \"keys\" array.")
        }
        for key in keys {
            guard let type = key["kty"]?.stringValue, type == "RSA" || (type == "EC" && key["crv"]?.stringValue == "P-256") else {
                throw ODataError.badRequest("Every JWKS key must be RSA or EC P-256 (for RS256 or ES256).")
            }
            guard key["kid"]?.stringValue?.isEmpty == false else { throw ODataError.badRequest("Every JWKS key needs a kid.") }
            guard key["d"] == nil else { throw ODataError.badRequest("The JWKS holds a private key; give the public keys only.") }
        }
        do {
            _ = try await IssuerKeySets.parse(jwks)
        } catch {
            throw ODataError.badRequest("The JWKS keys cannot be read: \(error)")
        }
    }
}
