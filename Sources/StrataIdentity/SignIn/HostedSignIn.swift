import Foundation
import Logging
import StrataCore

/// Sign-in through an identity provider, for native apps (RFC 8252) and the web: the app sends the
/// user to `/auth/authorize`, Strata sends them on to the provider with its own state, nonce and
/// PKCE, checks what comes back at `/auth/callback/{provider}`, and sends the user back to the app
/// with a one-time Strata code, which the app redeems with its own PKCE verifier at `/auth/token`.
///
/// Flows and codes are kept in the system database (``AuthStore/insertFlow(stateHash:_:client:limit:now:)``), so
/// every step may reach another server. docs/design/HOSTED-SIGN-IN.md tells the whole design.
package struct HostedSignIn: Sendable {
    package let auth: AuthRuntime
    let directory: ProviderDirectory

    /// How long a user may take at the provider.
    static let flowLifetime: Int64 = 600
    /// How long an app has to redeem its code; it does so at once.
    static let codeLifetime: Int64 = 60

    package init(auth: AuthRuntime) {
        self.auth = auth
        self.directory = ProviderDirectory(now: auth.settings.now, logger: auth.logger)
    }

    var store: AuthStore { auth.store }
    var logger: Logger { auth.logger }

    /// What an app asks `/auth/authorize` for.
    package struct Authorization: Sendable {
        var provider: String
        var redirectURI: String
        var codeChallenge: String
        /// `S256`; nil counts as S256, and `plain` is refused.
        var codeChallengeMethod: String?
        var state: String
        /// The service whose redirect URIs and sign-up setting apply; needed only when several
        /// services register the same redirect URI.
        var service: String?
        /// The client's address, which open flows are counted by (``AuthSettings/maxOpenSignInsPerAddress``).
        var client: String

        package init(provider: String, redirectURI: String, codeChallenge: String, codeChallengeMethod: String? = nil, state: String, service: String? = nil, client: String) {
            self.provider = provider
            self.redirectURI = redirectURI
            self.codeChallenge = codeChallenge
            self.codeChallengeMethod = codeChallengeMethod
            self.state = state
            self.service = service
            self.client = client
        }
    }

    /// An app's request as the hosted page carries it on to `/auth/authorize` and the sign-up form.
    package struct AppRequest: Sendable {
        var redirectURI: String
        var state: String
        package var codeChallenge: String
        package var service: String

        package init(redirectURI: String, state: String, codeChallenge: String, service: String) {
            self.redirectURI = redirectURI
            self.state = state
            self.codeChallenge = codeChallenge
            self.service = service
        }

        package var fields: [(String, String)] {
            [("redirect_uri", redirectURI), ("state", state), ("code_challenge", codeChallenge), ("code_challenge_method", "S256"),
             ("service", service)]
        }
    }

    /// The providers people may sign in with, for `/auth/providers` and the hosted page.
    package func providers() async throws -> [IdentityProvider] {
        try await store.providers().map(\.provider)
    }

    /// Checks an app's request and starts a flow; answers the provider's authorization URL to send
    /// the user to. `callbackBase` is Strata's public URL (`https://strata.example.org`).
    /// `linking` names the signed-in account a linking flow adds the identity to.
    ///
    /// Nothing here redirects to the app: until its redirect URI is known to be registered, an
    /// error is shown to the user, never sent to an address the request named (open redirect).
    package func authorize(_ request: Authorization, callbackBase: String, linking: String? = nil) async throws -> String {
        let service = try await checkRedirect(request.redirectURI, service: request.service).service
        guard let stored = try await store.providers(named: request.provider).first else {
            throw refuse(ODataError.notFound("There is no identity provider '\(request.provider)'; GET /auth/providers lists them."), provider: request.provider)
        }
        switch request.codeChallengeMethod {
        case nil, "S256": break
        case let method?: throw refuse(ODataError.badRequest("code_challenge_method \(method) is not accepted; send S256 (RFC 7636)."), provider: request.provider)
        }
        guard PKCE.isWellFormed(request.codeChallenge) else {
            throw refuse(ODataError.badRequest("Send code_challenge: the base64url SHA-256 of a verifier of 43 to 128 characters (RFC 7636, S256)."), provider: request.provider)
        }
        guard !request.state.isEmpty, request.state.utf8.count <= 1024 else {
            throw refuse(ODataError.badRequest("Send state (1 to 1024 characters); the app checks it when the user comes back."), provider: request.provider)
        }
        let provider = stored.provider
        let endpoints: ProviderEndpoints
        do {
            endpoints = try await directory.endpoints(for: provider)
        } catch {
            logger.error("An identity provider cannot be reached", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
            throw ODataError(status: 502, code: "BadGateway", message: "The identity provider \(provider.displayName) cannot be reached; try again later.")
        }
        let state = RandomSecret.token(bytes: 32), verifier = PKCE.verifier(), nonce = RandomSecret.token(bytes: 24)
        let now = AuthStore.seconds(auth.now)
        do {
            try await store.insertFlow(stateHash: RandomSecret.sha256Hex(state), SignInFlow(
                provider: provider.name, service: service, redirectURI: request.redirectURI, appState: request.state,
                codeChallenge: request.codeChallenge, nonce: nonce, verifier: verifier, linkSubject: linking, expiresAt: now + Self.flowLifetime),
                client: request.client, limit: auth.settings.maxOpenSignInsPerAddress, now: now)
        } catch let error as ThrottledError {
            _ = refuse(error.odataError, provider: provider.name)
            throw error
        }
        var fields: [(String, String)] = [
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", Self.callbackURL(callbackBase, provider: provider.name)),
            ("scope", provider.scopes.joined(separator: " ")), ("state", state),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
        ]
        if provider.kind == .oidc { fields.append(("nonce", nonce)) }
        let separator = endpoints.authorization.contains("?") ? "&" : "?"
        return endpoints.authorization + separator + PercentEncoding.encodeForm(fields)
    }

    /// Strata's callback for a provider: `BASE/auth/callback/NAME`, registered at the provider.
    static func callbackURL(_ base: String, provider: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/auth/callback/" + provider
    }

    /// The service whose list holds `redirectURI`, compared exactly (RFC 8252 §8.4, the OAuth
    /// security BCP) but for one thing: a registered `http://127.0.0.1/PATH` without a port matches
    /// that loopback address on any port, because a command line listens where it can (RFC 8252 §7.3).
    /// Answers the service with its sign-in settings, read once for the caller.
    package func checkRedirect(_ redirectURI: String, service: String?) async throws -> (service: String, settings: ServiceSignIn) {
        let settings = try await store.serviceSignIns()
        let registered = settings.filter { entry in
            entry.value.redirectURIs.contains { Self.redirect(redirectURI, matches: $0) }
        }.map(\.key).sorted()
        if let service {
            guard registered.contains(service) else {
                throw refuse(ODataError.badRequest("The redirect URI \(redirectURI) is not registered for the service \(service); register it with `strata service sign-in \(service) --redirect-uri …`."), provider: nil)
            }
            return (service, settings[service] ?? ServiceSignIn())
        }
        guard let first = registered.first else {
            throw refuse(ODataError.badRequest("The redirect URI \(redirectURI) is not registered for any service; register it with `strata service sign-in SERVICE --redirect-uri …`."), provider: nil)
        }
        guard registered.count == 1 else {
            throw refuse(ODataError.badRequest("The redirect URI \(redirectURI) is registered for several services (\(registered.joined(separator: ", "))); name one with service=."), provider: nil)
        }
        return (first, settings[first] ?? ServiceSignIn())
    }

    static func redirect(_ requested: String, matches registered: String) -> Bool {
        if requested == registered { return true }
        guard let wanted = URLComponents(string: registered), wanted.scheme == "http", wanted.port == nil,
              let host = wanted.host, host == "127.0.0.1" || host == "[::1]" || host == "::1",
              var given = URLComponents(string: requested), given.scheme == "http", given.host == host, given.port != nil else { return false }
        given.port = nil
        return given.string == registered
    }

    /// Logs a refusal (never a secret: states, codes and tokens are not in messages) and answers it.
    func refuse(_ error: ODataError, provider: String?) -> ODataError {
        logger.notice("Hosted sign-in refused", metadata: ["provider": "\(provider ?? "-")", "status": "\(error.status)", "reason": "\(error.message)"])
        return error
    }
}
