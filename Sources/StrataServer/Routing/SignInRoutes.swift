import HTTPTypes
import Hummingbird
import StrataCore
import StrataIdentity
import StrataOData
import StrataStorage

/// Hosted sign-in: `/auth/providers`, `/auth/sign-in`, `/auth/authorize`, `/auth/callback/{provider}`,
/// `/auth/sign-up`, `/auth/link` and `/auth/me/provider-token` (``HostedSignIn``; the code is
/// redeemed at `/auth/token`, in ``AuthRoutes``).
///
/// Pages a browser shows answer errors as HTML when the browser asks for HTML, and as OData error
/// bodies otherwise; nothing redirects to an app before its redirect URI is known to be registered.
enum SignInRoutes {
    static func register(on router: Router<StrataRequestContext>, runtime: StrataRuntime, signIn: HostedSignIn) {
        router.get("/auth/providers") { _, context in
            context.setRoute("auth.providers")
            return ODataResponse.json(providerList(try await signIn.providers()), version: nil)
        }
        router.get("/auth/sign-in") { request, context in
            context.setRoute("auth.sign-in")
            return try await browser(request) {
                let query = try fields(request)
                let redirectURI = try required(query, "redirect_uri")
                let (service, settings) = try await signIn.checkRedirect(redirectURI, service: query["service"])
                let app = HostedSignIn.AppRequest(redirectURI: redirectURI, state: try required(query, "state"),
                                                  codeChallenge: try required(query, "code_challenge"), service: service)
                let title = runtime.service(named: app.service)?.settings.title ?? app.service
                return SignInPage.response(SignInPage.page(providers: try await signIn.providers(), app: app,
                                                           allowsSignUp: settings.allowsSignUp, title: title))
            }
        }
        router.get("/auth/authorize") { request, context in
            context.setRoute("auth.authorize")
            return try await browser(request) {
                let query = try fields(request)
                let location = try await signIn.authorize(try authorization(query, client: client(request, context, signIn)),
                                                          callbackBase: runtime.baseURL(for: request))
                return redirect(location)
            }
        }
        router.get("/auth/callback/{provider}") { request, context in
            context.setRoute("auth.callback")
            let provider = context.parameters.get("provider") ?? ""
            return try await browser(request) {
                switch await signIn.callback(provider: provider, query: try fields(request), callbackBase: runtime.baseURL(for: request)) {
                case .redirect(let location): return redirect(location)
                case .failed(let error): throw error
                }
            }
        }
        router.post("/auth/sign-up") { request, context in
            context.setRoute("auth.sign-up")
            return try await signUp(request, context: context, signIn: signIn)
        }
        router.post("/auth/link") { request, context in
            context.setRoute("auth.link")
            guard let principal = context.principal, [.token, .basic, .provider].contains(principal.method) else {
                throw AuthErrors.unauthenticated("Sign in to an account to link an identity provider to it.")
            }
            let body = try TokenRequest.fields(body: Array(buffer: try await request.body.collect(upTo: TokenRequest.maximumBodySize)),
                                               contentType: request.headers[.contentType])
            let location: String
            do {
                location = try await signIn.authorize(try authorization(body, client: client(request, context, signIn)),
                                                      callbackBase: runtime.baseURL(for: request), linking: principal.subject)
            } catch let error as ThrottledError {
                return AuthenticationMiddleware.throttled(error)
            }
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("location")
            writer.string(location)
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: nil, extraHeaders: [.cacheControl: "no-store"])
        }
        router.get("/auth/me/provider-token") { request, context in
            context.setRoute("auth.provider-token")
            return try await providerToken(request, context: context, signIn: signIn)
        }
    }

    // MARK: Handlers

    private static func signUp(_ request: Request, context: StrataRequestContext, signIn: HostedSignIn) async throws -> Response {
        let auth = signIn.auth
        let body = try TokenRequest.fields(body: Array(buffer: try await request.body.collect(upTo: TokenRequest.maximumBodySize)),
                                           contentType: request.headers[.contentType])
        let fromPage = body["redirect_uri"] != nil
        let client = Self.client(request, context, signIn)
        let run = { () async throws -> Response in
            // The page's form carries the app's request; check it before anything is created.
            var app: HostedSignIn.AppRequest?
            if fromPage {
                app = HostedSignIn.AppRequest(redirectURI: try required(body, "redirect_uri"), state: try required(body, "state"),
                                            codeChallenge: try required(body, "code_challenge"),
                                            service: try await signIn.checkRedirect(try required(body, "redirect_uri"), service: body["service"]).service)
                guard PKCE.isWellFormed(app?.codeChallenge ?? "") else { throw ODataError.badRequest("The form's code_challenge is not valid; start again from the app.") }
            }
            let principal = try await signIn.signUp(service: try required(body, "service"), username: try required(body, "username"),
                                                    password: try required(body, "password"), client: client)
            if let app { return redirect(try await signIn.code(for: principal.subject, app: app), status: .seeOther) }
            let issued = try await auth.openSession(for: principal)
            return ODataResponse.json(issued.json, status: .created, version: nil, extraHeaders: [.cacheControl: "no-store", .pragma: "no-cache"])
        }
        do {
            return fromPage ? try await browser(request, run) : try await run()
        } catch let error as ThrottledError {
            return AuthenticationMiddleware.throttled(error)
        }
    }

    /// The provider's access token of the caller's sign-in, for a provider configured to pass it.
    private static func providerToken(_ request: Request, context: StrataRequestContext, signIn: HostedSignIn) async throws -> Response {
        let auth = signIn.auth
        guard context.principal != nil, let header = request.headers[.authorization],
              let token = Authenticator.credentials(header, scheme: "Bearer"),
              let claims = try? await auth.tokens.verify(token, now: auth.now), let id = claims.sid,
              let session = try await auth.store.session(id), let provider = session.provider else {
            throw AuthErrors.unauthenticated("Send the access token of a sign-in made through an identity provider.")
        }
        guard let text = session.providerToken, let sealed = AuthStore.sealedSecret(text) else {
            throw ODataError.notFound("The provider \(provider) does not pass its access token to apps; its administrator can turn that on (--pass-provider-token).")
        }
        let opened = try auth.tokens.ring.store.open(sealed, context: "provider-token:\(provider)", what: "A provider's access token")
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("provider")
        writer.string(provider)
        writer.key("access_token")
        writer.string(opened)
        writer.endObject()
        return ODataResponse.json(writer.bytes, version: nil, extraHeaders: [.cacheControl: "no-store", .pragma: "no-cache"])
    }

    // MARK: Parts

    private static func providerList(_ providers: [IdentityProvider]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("providers")
        writer.beginArray()
        for provider in providers {
            writer.beginObject()
            writer.key("name")
            writer.string(provider.name)
            writer.key("displayName")
            writer.string(provider.displayName)
            writer.key("icon")
            if let icon = provider.iconURL { writer.string(icon) } else { writer.null() }
            writer.key("kind")
            writer.string(provider.kind.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private static func authorization(_ fields: [String: String], client: String) throws(ODataError) -> HostedSignIn.Authorization {
        HostedSignIn.Authorization(provider: try required(fields, "provider"), redirectURI: try required(fields, "redirect_uri"),
                                   codeChallenge: try required(fields, "code_challenge"), codeChallengeMethod: fields["code_challenge_method"],
                                   state: try required(fields, "state"), service: fields["service"], client: client)
    }

    /// The client's address as throttling counts it (behind trusted proxies, the one they name).
    private static func client(_ request: Request, _ context: StrataRequestContext, _ signIn: HostedSignIn) -> String {
        context.clientAddress(request.headers, trusting: signIn.auth.settings.trustedProxies) ?? "unknown"
    }

    /// The query's fields; a field given twice is refused.
    static func fields(_ request: Request) throws(ODataError) -> [String: String] {
        let query = request.uri.query ?? ""
        guard query.utf8.count <= 16 * 1024 else { throw .badRequest("The query is too long.") }
        return try TokenRequest.formFields(query, of: "The query")
    }

    private static func required(_ fields: [String: String], _ name: String) throws(ODataError) -> String {
        guard let value = fields[name], !value.isEmpty else { throw .badRequest("The request needs \(name).") }
        return value
    }

    static func redirect(_ location: String, status: HTTPResponse.Status = .found) -> Response {
        Response(status: status, headers: [.location: location, .cacheControl: "no-store", .contentLength: "0"])
    }

    /// Runs a browser-facing handler: its errors become an HTML page when the client accepts HTML.
    private static func browser(_ request: Request, _ body: () async throws -> Response) async throws -> Response {
        let wantsHTML = (request.headers[.accept] ?? "").contains("text/html")
        do {
            return try await body()
        } catch let error as ODataError where wantsHTML {
            return SignInPage.response(SignInPage.error(error), status: HTTPResponse.Status(code: error.status))
        } catch let error as ThrottledError {
            guard wantsHTML else { return AuthenticationMiddleware.throttled(error) }
            var response = SignInPage.response(SignInPage.error(error.odataError), status: .tooManyRequests)
            response.headers[.retryAfter] = String(error.retryAfter)
            return response
        }
    }
}
