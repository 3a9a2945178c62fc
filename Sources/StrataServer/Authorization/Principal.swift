/// The caller of a request, as authentication established it.
public struct Principal: Sendable, Hashable {
    /// The account name, or the `sub` claim of an external token.
    public var subject: String
    /// Strata roles: built-in `reader`, `editor`, `admin`, or custom role names.
    public var roles: Set<String>
    /// Claims available to row filters as `$claims.<name>` (for example `sub`, `email`).
    public var claims: [String: String]

    public init(subject: String, roles: Set<String>, claims: [String: String] = [:]) {
        self.subject = subject
        self.roles = roles
        self.claims = claims
    }
}
