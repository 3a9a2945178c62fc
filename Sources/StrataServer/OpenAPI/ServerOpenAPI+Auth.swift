import StrataOData

extension ServerOpenAPI {
    /// Tokens, the signed-in account and hosted sign-in (docs/SIGN-IN.md).
    static var auth: [ServerEndpoint] {
        let tag = "auth"
        let tokens = OpenAPISchema.object([
            ("access_token", .string()), ("token_type", .string()), ("expires_in", OpenAPISchema(type: .integer)),
            ("refresh_token", .string()),
        ], required: ["access_token", "token_type", "expires_in"])
        let appRequest: [OpenAPIParameter] = [
            .query("redirect_uri", "The app's registered redirect URI.", required: true), .query("state", "Returned to the app unchanged.", required: true),
            .query("code_challenge", "PKCE: the S256 challenge of the app's verifier.", required: true),
            .query("code_challenge_method", "S256."), .query("service", "The service the app signs in to."),
        ]
        return [
            ServerEndpoint("post", "/auth/token", tag: tag, "Tokens for a password, a refresh token or a hosted sign-in's code (PKCE).",
                           body: .form(fields(["grant_type", "username", "password", "refresh_token", "code", "code_verifier", "redirect_uri", "service"])),
                           answers: [("200", "Access and refresh tokens.", .json(tokens))]),
            ServerEndpoint("post", "/auth/logout", tag: tag, "Ends the sign-in of a refresh token.",
                           body: .form(fields(["refresh_token"])), answers: [("204", "Signed out.", nil)]),
            ServerEndpoint("get", "/auth/me", tag: tag, "Who the caller is: subject, roles, claims.", answers: [("200", "The caller.", .json(anyObject))]),
            ServerEndpoint("get", "/auth/me/provider-token", tag: tag, "The identity provider's access token kept with this sign-in.",
                           answers: [("200", "The provider's token.", .json(anyObject))]),
            ServerEndpoint("get", "/auth/providers", tag: tag, "The identity providers of hosted sign-in.",
                           answers: [("200", "The providers: name, displayName, icon, kind.",
                                       .json(.object([("providers", list)], required: ["providers"])))]),
            ServerEndpoint("get", "/auth/sign-in", tag: tag, "The hosted sign-in page (OAuth 2 authorization endpoint).", query: appRequest,
                           answers: [("200", "The page.", .html)]),
            ServerEndpoint("get", "/auth/authorize", tag: tag, "Starts a sign-in at one provider: a redirect to it.",
                           query: [.query("provider", "The provider's name.", required: true)] + appRequest,
                           answers: [("302", "To the provider.", nil)]),
            ServerEndpoint("get", "/auth/callback/{provider}", tag: tag, "Where a provider sends the browser back; redirects to the app with a code.",
                           query: [.query("code", "The provider's code."), .query("state", "The sign-in's state.")],
                           answers: [("302", "To the app.", nil)]),
            ServerEndpoint("post", "/auth/sign-up", tag: tag, "Creates an account where the service allows sign-up.",
                           body: .form(fields(["service", "username", "password"], required: ["service", "username", "password"])),
                           answers: [("201", "The account's tokens.", .json(tokens))]),
            ServerEndpoint("post", "/auth/link", tag: tag, "Links another identity provider to the signed-in account: where to send the browser.",
                           body: .form(fields(["provider", "redirect_uri", "state", "code_challenge"])),
                           answers: [("200", "The provider's URL.", .json(fields(["location"], required: ["location"])))]),
            ServerEndpoint("get", "/.well-known/jwks.json", tag: tag, "The public keys that verify Strata's access tokens.",
                           answers: [("200", "A JSON Web Key Set.", .json(fields(["keys"], required: ["keys"])))]),
        ]
    }
}
