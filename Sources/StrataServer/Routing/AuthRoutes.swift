import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore
import StrataIdentity
import StrataOData

/// `/auth/token`, `/auth/logout`, `/auth/me` and `/.well-known/jwks.json`.
enum AuthRoutes {
    static func register(on router: Router<StrataRequestContext>, auth: AuthRuntime, signIn: HostedSignIn) {
        router.post("/auth/token") { request, context in
            context.setRoute("auth.token")
            return try await token(request, context: context, auth: auth, signIn: signIn)
        }
        router.post("/auth/logout") { request, context in
            context.setRoute("auth.logout")
            return try await logout(request, context: context, auth: auth)
        }
        router.get("/auth/me") { _, context in
            context.setRoute("auth.me")
            guard let principal = context.principal else {
                throw AuthErrors.unauthenticated("Sign in to see who you are.")
            }
            return ODataResponse.json(me(principal), version: nil, extraHeaders: [.cacheControl: "no-store"])
        }
        // Public keys for other services that check Strata's tokens; cached briefly, as a rotated
        // key signs only tokens issued after it, and old keys stay listed while they verify.
        router.get("/.well-known/jwks.json") { _, context in
            context.setRoute("auth.jwks")
            return ODataResponse.json(try auth.tokens.ring.jwks(now: auth.now), version: nil,
                                      extraHeaders: [.cacheControl: "public, max-age=\(jwksMaxAge)"])
        }
    }

    /// Seconds a client may keep the JWKS document: a new ES256 key is published as it starts signing,
    /// so a checker that caches longer may meet a kid it does not know yet and should fetch again then.
    static let jwksMaxAge = 300

    /// Issues tokens. Refusals are 403 with an OData error body (as the hockey sample's token service answers); too many failed
    /// logins are 429 with `Retry-After`; a malformed request is 400.
    static func token(_ request: Request, context: StrataRequestContext, auth: AuthRuntime, signIn: HostedSignIn) async throws -> Response {
        let body = try await request.body.collect(upTo: TokenRequest.maximumBodySize)
        let tokenRequest = try TokenRequest.parse(body: Array(buffer: body), contentType: request.headers[.contentType])
        let issued: AuthRuntime.IssuedTokens
        switch tokenRequest {
        case .password(let username, let password):
            do {
                let principal = try await auth.authenticator.login(
                    username: username, password: password, client: context.clientAddress(request.headers, trusting: auth.settings.trustedProxies) ?? "unknown")
                issued = try await auth.openSession(for: principal)
            } catch let error as ThrottledError {
                return AuthenticationMiddleware.throttled(error)
            }
        case .refresh(let token):
            issued = try await auth.refresh(token)
        case .exchange(let subjectToken):
            issued = try await auth.exchange(subjectToken)
        case .authorizationCode(let code, let verifier, let redirectURI):
            issued = try await signIn.redeem(code: code, verifier: verifier, redirectURI: redirectURI)
        }
        // Tokens must not be cached by anything between server and client (RFC 6749 §5.1).
        return ODataResponse.json(issued.json, version: nil, extraHeaders: [.cacheControl: "no-store", .pragma: "no-cache"])
    }

    /// Ends a sign-in: the one of the Bearer token on the request, or the one of a refresh token
    /// in the body (`refresh_token`, JSON or form). Its access and refresh tokens stop working. 204.
    static func logout(_ request: Request, context: StrataRequestContext, auth: AuthRuntime) async throws -> Response {
        let body = Array(buffer: try await request.body.collect(upTo: TokenRequest.maximumBodySize))
        let now = AuthStore.seconds(auth.now)
        if !body.isEmpty, let token = try TokenRequest.fields(body: body, contentType: request.headers[.contentType])["refresh_token"] {
            _ = try await auth.store.revokeSession(refreshHash: RandomSecret.sha256Hex(token), now: now)
            return Response(status: .noContent)
        }
        if let header = request.headers[.authorization], let token = Authenticator.credentials(header, scheme: "Bearer"),
           context.principal != nil {
            if let claims = try? await auth.tokens.verify(token, now: auth.now), let session = claims.sid {
                try await auth.store.revokeSession(session, now: now)
                return Response(status: .noContent)
            }
            throw ODataError.badRequest("Only a sign-in made at /auth/token can be ended; this token has none.")
        }
        if context.principal != nil {
            throw ODataError.badRequest("HTTP Basic credentials are not a sign-in; there is nothing to end.")
        }
        throw AuthErrors.unauthenticated("Send the access token to end its sign-in, or its refresh_token in the body.")
    }

    /// `GET /auth/me`: who the caller is and what roles they hold.
    static func me(_ principal: Principal) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("subject")
        writer.string(principal.subject)
        writer.key("roles")
        writer.beginArray()
        for role in principal.roleNames { writer.string(role) }
        writer.endArray()
        writer.key("authentication")
        writer.string(principal.method.rawValue)
        if let issuer = principal.issuer {
            writer.key("issuer")
            writer.string(issuer)
        }
        if let provider = principal.provider {
            writer.key("provider")
            writer.string(provider)
        }
        writer.key("claims")
        writer.beginObject()
        for (name, value) in principal.claims.sorted(by: { $0.key < $1.key }) {
            writer.key(name)
            writer.string(value)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}

extension HTTPField.Name {
    static let pragma = HTTPField.Name("Pragma")!
}
