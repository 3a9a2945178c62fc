import Foundation
import Logging
import StrataCore
import StrataIdentity

/// `strata provider …`, `strata service sign-in …` and `/admin/providers`, `/admin/sign-in`:
/// identity providers of hosted sign-in, and how each service takes part in it.
extension Administration {
    /// Adds a provider, or replaces its settings and rules. An OpenID Connect provider's discovery
    /// document and keys are fetched first, so that a wrong issuer URL is refused now rather than
    /// at someone's sign-in. `secret` nil keeps a stored secret; it is sealed before it is stored.
    public func putProvider(_ provider: IdentityProvider, secret: ProviderSecret?) async throws {
        try provider.validate()
        for rule in provider.roleRules { try Self.check(rule) }
        if provider.kind == .oidc {
            let directory = ProviderDirectory(now: now, logger: Logger(label: "strata.provider-check"))
            do {
                _ = try await directory.keys(for: provider, kid: nil)
            } catch let failure as ProviderHTTP.Failure {
                throw ODataError.badRequest("The provider's discovery document or keys cannot be used: \(failure). Check the issuer URL.")
            }
        }
        var sealed: SealedSecret?
        if let secret {
            guard !secret.text.isEmpty, secret.text.utf8.count <= 4096 else { throw ODataError.badRequest("A client secret has 1 to 4096 bytes.") }
            guard let signingKeys else { throw ODataError.badRequest("Client secrets are sealed with the signing keys' key; this front end has none.") }
            sealed = try await signingKeys.seal(secret.text, context: "provider:\(provider.name)")
        }
        try await store.putProvider(provider, secret: sealed, now: now())
    }

    /// Every provider with its rules; never a secret (``IdentityProvider/hasSecret`` says whether one is stored).
    public func listProviders() async throws -> [IdentityProvider] {
        try await store.providers().map(\.provider)
    }

    /// Removes a provider; the identities linked through it are unlinked and its sign-ins end.
    public func removeProvider(_ name: String) async throws {
        try await store.removeProvider(name, now: now())
    }

    /// Links a provider's subject to an account, so that signing in with it signs in to the account.
    public func linkIdentity(provider: String, subject: String, to username: String) async throws {
        guard try await store.providers(named: provider).first != nil else { throw AuthStore.noProvider(provider) }
        guard !subject.isEmpty, subject.utf8.count <= 256 else { throw ODataError.badRequest("A subject is 1 to 256 bytes.") }
        let owner = try await store.link(provider: provider, subject: subject, to: username, now: now())
        guard owner == username else {
            throw ODataError(status: 409, code: "Conflict", message: "That identity is linked to the account '\(owner)' already.")
        }
    }

    /// The sign-in settings of every service that has any.
    public func serviceSignIns() async throws -> [String: ServiceSignIn] {
        try await store.serviceSignIns()
    }

    /// Changes how a service takes part in hosted sign-in; what is nil stays as it is.
    @discardableResult
    public func configureSignIn(_ service: String, redirectURIs: [String]? = nil, allowsSignUp: Bool? = nil,
                                signUpRole: SettingChange<String>? = nil) async throws -> ServiceSignIn {
        _ = try await requireModel(service)
        var settings = try await store.serviceSignIns()[service] ?? ServiceSignIn()
        if let redirectURIs {
            for uri in redirectURIs { try Self.checkRedirectURI(uri) }
            settings.redirectURIs = Array(NSOrderedSet(array: redirectURIs).compactMap { $0 as? String })
        }
        if let allowsSignUp { settings.allowsSignUp = allowsSignUp }
        switch signUpRole {
        case .value(let role)?:
            try AuthNames.checkRole(role)
            guard role != BuiltInRole.admin.rawValue else {
                throw ODataError.badRequest("New accounts may not be administrators; give them reader, editor or a custom role.")
            }
            settings.signUpRole = role
        case .serverDefault?: settings.signUpRole = nil
        case nil: break
        }
        try await store.saveServiceSignIn(service, settings)
        return settings
    }

    /// A redirect URI an app may register (RFC 8252 §7): a private-use scheme (`com.example.app:/cb`),
    /// https, or http on a loopback host; absolute, no fragment, no wildcard.
    static func checkRedirectURI(_ text: String) throws(ODataError) {
        guard text.utf8.count <= 1024, let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.fragment == nil,
              !text.contains("*") else {
            throw .badRequest("A redirect URI is an absolute URI without fragment or wildcard; '\(text)' is not.")
        }
        switch scheme {
        case "https":
            guard url.host?.isEmpty == false else { throw .badRequest("The https redirect URI '\(text)' names no host.") }
        case "http":
            guard let host = url.host, IdentityProvider.isLoopback(host) else {
                throw .badRequest("An http redirect URI must be on a loopback address (127.0.0.1, RFC 8252 §7.3); use https or an app's own scheme for '\(text)'.")
            }
        case "javascript", "data", "file", "vbscript":
            throw .badRequest("The scheme \(scheme) cannot be a redirect URI.")
        default:
            break
        }
    }
}

extension ClaimRule {
    /// A rule as the command line and `/admin` write it: `CLAIM any ROLE`, `CLAIM equals VALUE ROLE`
    /// or `CLAIM suffix VALUE ROLE` (VALUE without spaces), optionally followed by
    /// `allow-unverified` (for `email` rules: addresses the provider has not verified count too).
    public init(parsing text: String) throws(ODataError) {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let unverified = words.last == "allow-unverified"
        if unverified { words.removeLast() }
        switch (words.count, words.count > 1 ? words[1] : "") {
        case (3, "any"): self.init(claim: words[0], match: .any, role: words[2], allowsUnverifiedEmail: unverified)
        case (4, "equals"): self.init(claim: words[0], match: .equals(words[2]), role: words[3], allowsUnverifiedEmail: unverified)
        case (4, "suffix"): self.init(claim: words[0], match: .suffix(words[2]), role: words[3], allowsUnverifiedEmail: unverified)
        default:
            throw .badRequest("A rule reads \"CLAIM any ROLE\", \"CLAIM equals VALUE ROLE\" or \"CLAIM suffix VALUE ROLE\", optionally followed by allow-unverified, not \"\(text)\".")
        }
    }

    /// The rule as ``init(parsing:)`` reads it, so that what `/admin` lists can be sent back unchanged
    /// (``description`` is for people: "email in domain example.org → editor").
    public var parseableText: String {
        let stored = storedMatch
        let match = stored.kind == "any" ? "any" : "\(stored.kind) \(stored.value)"
        return "\(claim) \(match) \(role)\(allowsUnverifiedEmail ? " allow-unverified" : "")"
    }
}

extension ClaimOutput {
    /// An output rule as the command line and `/admin` write it: `pass CLAIM`, `rename CLAIM NEW`
    /// or `set CLAIM VALUE` (the value may hold spaces).
    public init(parsing text: String) throws(ODataError) {
        let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        switch (words.first, words.count) {
        case ("pass"?, 2): self = .pass(words[1])
        case ("rename"?, 3): self = .rename(words[1], to: words[2])
        case ("set"?, 3): self = .set(words[1], value: words[2])
        default: throw .badRequest("A claim rule reads \"pass CLAIM\", \"rename CLAIM NEW-NAME\" or \"set CLAIM VALUE\", not \"\(text)\".")
        }
        try validate()
    }

    /// The rule as ``init(parsing:)`` reads it (``description`` is for people).
    public var parseableText: String {
        switch self {
        case .pass(let name): return "pass \(name)"
        case .rename(let from, let to): return "rename \(from) \(to)"
        case .set(let name, let value): return "set \(name) \(value)"
        }
    }
}
