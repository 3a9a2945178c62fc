/// The security schemes of a server with accounts: Bearer tokens (JWTs Strata issues, or a trusted
/// issuer's), HTTP Basic with an account's password, and OAuth 2's authorization code flow with PKCE
/// at the hosted sign-in (`/auth/sign-in`, redeemed at `/auth/token`; docs/SIGN-IN.md).
package struct OpenAPISignIn: Sendable, Equatable {
    /// The server's base URL, absolute and without a trailing slash (`https://host`).
    package var baseURL: String
    /// The service the sign-in is for (its sign-up role, its redirect URIs); nil for the server's own document.
    package var service: String?

    package init(baseURL: String, service: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.service = service
    }

    package var schemes: OpenAPIMap<OpenAPISecurityScheme> {
        var authorization = baseURL + "/auth/sign-in"
        if let service { authorization += "?service=" + service.percentEncodedForQuery }
        return OpenAPIMap([
            ("bearer", .bearer(format: "JWT", description: "An access token from POST /auth/token (or a trusted issuer's JWT).")),
            ("basic", .basic(description: "An account's name and password.")),
            ("oauth2", .authorizationCode(
                authorizationURL: authorization, tokenURL: baseURL + "/auth/token",
                description: """
                    The hosted sign-in: PKCE is required (code_challenge with code_challenge_method S256, and the \
                    code_verifier when the code is redeemed at the token URL); the redirect URI must be registered with the service.
                    """)),
        ])
    }

    /// Each scheme on its own, and none (`{}`): anonymous callers get what the server's anonymous access allows.
    package var requirements: [SecurityRequirement] {
        [OpenAPIMap(), OpenAPIMap([("bearer", [])]), OpenAPIMap([("basic", [])]), OpenAPIMap([("oauth2", [])])]
    }
}

extension String {
    /// The string with every byte but RFC 3986's unreserved ones percent-encoded, for a query's value.
    fileprivate var percentEncodedForQuery: String {
        var out = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
