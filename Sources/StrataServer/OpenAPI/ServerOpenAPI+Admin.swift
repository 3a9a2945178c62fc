import StrataOData

extension ServerOpenAPI {
    /// `/admin/…`, for callers holding the admin role for every service (``AdminRoutes`` lists the bodies).
    static var admin: [ServerEndpoint] {
        let tag = "admin"
        func read(_ path: String, _ summary: String, query: [OpenAPIParameter] = [], schema: OpenAPISchema = anyObject) -> ServerEndpoint {
            ServerEndpoint("get", path, tag: tag, summary, query: query, answers: [("200", "The list.", .json(schema))])
        }
        func write(_ method: String, _ path: String, _ summary: String, _ members: [String], status: String = "200") -> ServerEndpoint {
            ServerEndpoint(method, path, tag: tag, summary, body: .json(fields(members)), answers: [(status, "Done.", .json(anyObject))])
        }
        func remove(_ path: String, _ summary: String, _ names: [String], counted: Bool = false) -> ServerEndpoint {
            // Rights are removed in numbers (all of a role's on a table, say): those answer how many.
            ServerEndpoint("delete", path, tag: tag, summary, query: names.map { .query($0, "Which one.") },
                           answers: counted ? [("200", "How many were removed.", .json(.object([("removed", OpenAPISchema(type: .integer))])))]
                                            : [("204", "Removed.", nil)])
        }
        return [
            read("/admin/users", "Accounts with their roles."),
            write("post", "/admin/users", "Creates an account.", ["username", "password", "roles"], status: "201"),
            remove("/admin/users", "Removes an account.", ["username"]),
            write("post", "/admin/users/password", "Sets a password; the account's sign-ins end.", ["username", "password"]),
            write("post", "/admin/users/sign-out", "Ends every sign-in of an account.", ["username"]),
            write("post", "/admin/roles", "Gives an account a role.", ["username", "role", "service"]),
            remove("/admin/roles", "Takes a role from an account.", ["username", "role", "service"]),
            read("/admin/grants", "Table rights.", query: [.query("service", "Only this service's.")]),
            write("post", "/admin/grants", "Grants a role rights on a table.", ["role", "service", "table", "actions", "filter"]),
            remove("/admin/grants", "Revokes rights.", ["role", "service", "table", "actions"], counted: true),
            read("/admin/access", "Anonymous access per service."),
            write("put", "/admin/access", "Sets a service's anonymous access.", ["service", "anonymous"]),
            read("/admin/services", "Service settings."),
            write("put", "/admin/services", "Changes a service's settings.", ["service", "pageSize", "requireIfMatch", "allowClientKeys", "odataVersion"]),
            write("post", "/admin/services/reload", "Reads every service's catalog and model file again.", []),
            read("/admin/issuers", "Trusted token issuers."),
            write("post", "/admin/issuers", "Trusts an issuer.", ["issuer", "audience", "jwks", "rules"]),
            remove("/admin/issuers", "Stops trusting an issuer.", ["issuer"]),
            write("post", "/admin/issuers/rules", "Adds a rule that maps an issuer's claims to a role.", ["issuer", "claim", "match", "value", "role"]),
            remove("/admin/issuers/rules", "Removes a rule.", ["issuer", "claim", "match", "value", "role"]),
            read("/admin/keys", "Token signing keys (never their material)."),
            write("post", "/admin/keys/rotate", "Rotates the signing key.", ["algorithm"], status: "201"),
            read("/admin/providers", "Identity providers of hosted sign-in (never their secrets)."),
            write("post", "/admin/providers", "Adds or changes an identity provider.", ["name", "issuer", "clientId", "clientSecret"]),
            remove("/admin/providers", "Removes an identity provider.", ["name"]),
            read("/admin/sign-in", "Each service's redirect URIs and sign-up."),
            write("put", "/admin/sign-in", "Sets a service's redirect URIs and sign-up.", ["service", "redirectUris", "signUp", "signUpRole"]),
            ServerEndpoint("get", "/admin/model", tag: tag, "A service's model file.", query: [.query("service", "The service.", required: true)],
                           answers: [("200", "The file.", .text("text/plain"))]),
            ServerEndpoint("put", "/admin/model", tag: tag, "Applies a model file to a service.", query: [.query("service", "The service.", required: true)],
                           body: .text("text/plain"), answers: [("200", "Applied.", .json(anyObject))]),
            remove("/admin/model", "Removes a service's model file.", ["service"]),
            write("post", "/admin/preview-token", "A short-lived read-only token holding exactly the given roles.", ["roles"], status: "201"),
            // The one list answered as a bare array (the console reads it so).
            read("/admin/container-grants", "Rights on blob containers.", schema: list),
            write("post", "/admin/container-grants", "Grants a role rights on a container.", ["role", "container", "actions"]),
            remove("/admin/container-grants", "Revokes rights on a container.", ["role", "container", "actions"], counted: true),
        ]
    }
}
