import Foundation
import StrataCore

/// An identity provider people sign in with on Strata's hosted sign-in (`/auth/sign-in`,
/// `/auth/authorize`): an OpenID Connect provider found by its issuer URL, or a plain OAuth 2
/// provider (Facebook's kind) given by its endpoints and a user-info URL.
///
/// Its client secret is stored sealed and never read back out: listings say only ``hasSecret``.
public struct IdentityProvider: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// OpenID Connect: discovery, an `id_token` checked against the provider's keys, a nonce.
        case oidc
        /// OAuth 2 without OpenID Connect: who signed in is read from the user-info endpoint.
        case oauth2
    }

    /// The name in URLs (`/auth/callback/NAME`) and in `strata provider`: 1–64 lower-case letters,
    /// digits, `-` or `_`.
    public var name: String
    public var kind: Kind
    /// The issuer URL: the `iss` of its ID tokens, and where `/.well-known/openid-configuration` is.
    /// For OAuth 2 providers, the name accounts are linked under (their `sub` is the user-info `id`).
    public var issuer: String
    public var clientID: String
    public var scopes: [String]
    /// What the hosted page's button says: "Sign in with DISPLAY NAME".
    public var displayName: String
    public var iconURL: String?
    /// Endpoints an OAuth 2 provider needs; an OpenID Connect provider's come from discovery unless given.
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var userInfoEndpoint: String?
    /// Whether the provider's access token is kept (sealed) with the sign-in, for the app to call the
    /// provider's API through `GET /auth/me/provider-token`. Off by default.
    public var passesProviderToken: Bool
    /// Rules that give Strata roles, as trusted issuers' rule groups do.
    public var roleRules: [ClaimRule]
    /// Rules that make the claims the app receives.
    public var claimRules: [ClaimOutput]
    /// Whether a client secret is stored (confidential client); never the secret itself.
    public var hasSecret: Bool

    public init(name: String, kind: Kind = .oidc, issuer: String, clientID: String, scopes: [String] = ["openid", "profile", "email"],
                displayName: String? = nil, iconURL: String? = nil, authorizationEndpoint: String? = nil,
                tokenEndpoint: String? = nil, userInfoEndpoint: String? = nil, passesProviderToken: Bool = false,
                roleRules: [ClaimRule] = [], claimRules: [ClaimOutput] = [], hasSecret: Bool = false) {
        self.name = name
        self.kind = kind
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.displayName = displayName ?? name
        self.iconURL = iconURL
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userInfoEndpoint = userInfoEndpoint
        self.passesProviderToken = passesProviderToken
        self.roleRules = roleRules
        self.claimRules = claimRules
        self.hasSecret = hasSecret
    }

    /// Checks what can be checked without asking the provider; the messages say what to change.
    package func validate() throws(ODataError) {
        guard !name.isEmpty, name.count <= 64,
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }) else {
            throw .badRequest("A provider name has 1 to 64 lower-case letters, digits, '-' or '_'; '\(name)' does not.")
        }
        try Self.checkURL(issuer, what: "The issuer")
        guard !clientID.isEmpty, clientID.count <= 512 else { throw .badRequest("Give the client id the provider issued (1 to 512 characters).") }
        guard !displayName.isEmpty, displayName.count <= 128 else { throw .badRequest("A display name has 1 to 128 characters.") }
        guard scopes.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0 != "\"" && $0 != "\\" } }) else {
            throw .badRequest("Scopes are words of visible ASCII characters, without quotes or backslashes.")
        }
        if kind == .oidc, !scopes.contains("openid") {
            throw .badRequest("An OpenID Connect provider needs the scope openid; add it, or configure the provider as --kind oauth2.")
        }
        if let iconURL { try Self.checkURL(iconURL, what: "The icon URL") }
        for (endpoint, label) in [(authorizationEndpoint, "authorization"), (tokenEndpoint, "token"), (userInfoEndpoint, "user-info")] {
            if let endpoint { try Self.checkURL(endpoint, what: "The \(label) endpoint") }
        }
        if kind == .oauth2, authorizationEndpoint == nil || tokenEndpoint == nil || userInfoEndpoint == nil {
            throw .badRequest("An OAuth 2 provider needs its authorization, token and user-info endpoints.")
        }
        for rule in roleRules { try AuthNames.checkRole(rule.role) }
        for rule in claimRules { try rule.validate() }
    }

    /// `https`, or `http` to a loopback host (a provider on the same machine, as in tests): a
    /// provider's endpoints carry codes and secrets, which must not cross a network in the clear.
    static func checkURL(_ text: String, what: String) throws(ODataError) {
        guard text.count <= 1024, let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.query == nil, url.fragment == nil else {
            throw .badRequest("\(what) must be an absolute https URL without query or fragment; '\(text)' is not.")
        }
        guard scheme == "https" || (scheme == "http" && isLoopback(host)) else {
            throw .badRequest("\(what) must use https (http only on a loopback address such as 127.0.0.1); '\(text)' does not.")
        }
    }

    package static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}

/// A client secret to store with a provider: sealed before it reaches the database, never logged.
public struct ProviderSecret: Sendable, CustomStringConvertible {
    package let text: String

    public init(_ text: String) { self.text = text }

    /// Never the secret.
    public var description: String { "(secret)" }
}
