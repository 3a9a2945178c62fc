/// The caller of a request, as authentication established it.
public struct Principal: Sendable, Hashable {
    /// How the caller proved who they are.
    public enum Method: String, Sendable, Hashable {
        /// A Strata access token obtained with a password or a refresh token.
        case token
        /// HTTP Basic credentials on the request itself.
        case basic
        /// A token of a trusted identity provider, presented directly.
        case external
        /// A Strata access token obtained by exchanging a trusted identity provider's token.
        case exchanged
        /// A Strata access token obtained by signing in through an identity provider (hosted sign-in).
        case provider
    }

    /// The account name, or the `sub` claim of an external token.
    public var subject: String
    /// Strata roles held for every service: built-in `reader`, `editor`, `admin`, or custom role names.
    public var roles: Set<String>
    /// Roles held for one service only, by service name.
    public var serviceRoles: [String: Set<String>]
    /// Claims available to row filters as `$claims.<name>` (for example `sub`, `email`).
    public var claims: [String: String]
    public var method: Method
    /// The trusted issuer that vouched for an external or exchanged caller; nil for accounts.
    public var issuer: String?
    /// The identity provider of a hosted sign-in; its rules made ``claims``.
    public var provider: String?
    /// A role preview (`POST /admin/preview-token`): reads only, whatever its roles allow.
    public var preview: Bool = false

    public init(subject: String, roles: Set<String>, serviceRoles: [String: Set<String>] = [:], claims: [String: String] = [:],
                method: Method = .token, issuer: String? = nil, provider: String? = nil) {
        self.provider = provider
        self.subject = subject
        self.roles = roles
        self.serviceRoles = serviceRoles
        self.claims = claims
        self.method = method
        self.issuer = issuer
    }

    /// The roles that count in one service.
    public func roles(in service: String) -> Set<String> {
        roles.union(serviceRoles[service] ?? [])
    }

    /// Roles as tokens and `/auth/me` list them: `editor` for every service, `reader@hockey` for one.
    package var roleNames: [String] {
        roles.sorted() + serviceRoles.sorted { $0.key < $1.key }.flatMap { service, roles in roles.sorted().map { "\($0)@\(service)" } }
    }
}
