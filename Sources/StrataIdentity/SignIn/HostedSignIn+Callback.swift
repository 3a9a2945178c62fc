import Foundation
import Logging
import StrataCore

extension HostedSignIn {
    /// Where the user goes after the provider's callback: back to the app with a code or an error,
    /// or, when the flow is unknown (its state is not Strata's, or was used), nowhere: an error page.
    package enum CallbackOutcome: Sendable, Equatable {
        case redirect(String)
        case failed(ODataError)
    }

    /// Handles `GET /auth/callback/{provider}?code&state[&iss]` or `?error&state`.
    package func callback(provider name: String, query: [String: String], callbackBase: String) async -> CallbackOutcome {
        guard let state = query["state"], !state.isEmpty, state.utf8.count <= 256 else {
            return .failed(refuse(.badRequest("The provider's answer has no state; start the sign-in again from the app."), provider: name))
        }
        let flow: SignInFlow
        do {
            guard let taken = try await store.takeFlow(stateHash: RandomSecret.sha256Hex(state), now: AuthStore.seconds(auth.now)) else {
                return .failed(refuse(.badRequest("This sign-in is unknown, has expired, or was completed already; start it again from the app."), provider: name))
            }
            flow = taken
        } catch {
            logger.error("Could not read a sign-in flow", metadata: ["error": "\(error)"])
            return .failed(ODataError(status: 503, code: "ServiceUnavailable", message: "Sign-in is not available right now; try again."))
        }
        do {
            let code = try await complete(flow, callbackProvider: name, query: query, callbackBase: callbackBase)
            return .redirect(Self.appendingQuery(flow.redirectURI, [("code", code), ("state", flow.appState)]))
        } catch let refusal as Refusal {
            _ = refuse(AuthErrors.forbidden(refusal.description), provider: flow.provider)
            return .redirect(Self.appendingQuery(flow.redirectURI, [
                ("error", refusal.error), ("error_description", refusal.description), ("state", flow.appState),
            ]))
        } catch {
            logger.error("A sign-in failed", metadata: ["provider": "\(flow.provider)", "error": "\(error)"])
            return .redirect(Self.appendingQuery(flow.redirectURI, [
                ("error", "server_error"), ("error_description", "The sign-in could not be completed; try again."), ("state", flow.appState),
            ]))
        }
    }

    /// A sign-in refused after the app's redirect URI is known: sent there as an OAuth error
    /// (RFC 6749 §4.1.2.1), with a description that says what happened.
    struct Refusal: Error, CustomStringConvertible {
        var error: String
        var description: String

        static func denied(_ description: String) -> Refusal { Refusal(error: "access_denied", description: description) }
    }

    /// Checks the provider's answer, finds or creates the account, and stores a one-time code;
    /// answers that code.
    private func complete(_ flow: SignInFlow, callbackProvider: String, query: [String: String], callbackBase: String) async throws -> String {
        // Mix-up: the answer must come back on the callback of the provider the flow was sent to.
        guard flow.provider == callbackProvider else {
            throw Refusal.denied("The answer came from another identity provider than the sign-in was sent to.")
        }
        guard let stored = try await store.providers(named: flow.provider).first else {
            throw Refusal.denied("The identity provider \(flow.provider) was removed during the sign-in.")
        }
        let provider = stored.provider
        let endpoints = try await directory.endpoints(for: provider)
        // An OAuth 2 provider's configured issuer is only a name for its identities: nothing to compare.
        if provider.kind == .oidc, let issuer = query["iss"] {
            guard issuer == provider.issuer else {
                throw Refusal.denied("The answer names another issuer than \(provider.displayName) (RFC 9207).")
            }
        } else if endpoints.sendsIssuerInResponse {
            throw Refusal.denied("\(provider.displayName) names itself in its answers (RFC 9207), and this one does not.")
        }
        if let error = query["error"] {
            let known = ["access_denied", "login_required", "consent_required", "interaction_required", "temporarily_unavailable"]
            throw Refusal(error: known.contains(error) ? error : "access_denied",
                          description: "\(provider.displayName) did not sign you in (\(error.prefix(64))).")
        }
        guard let code = query["code"], !code.isEmpty, code.utf8.count <= 4096 else {
            throw Refusal(error: "invalid_request", description: "\(provider.displayName) answered without a code.")
        }
        let secret = try stored.secret.map { sealed in
            try auth.tokens.ring.store.open(sealed, context: "provider:\(provider.name)", what: "The client secret of provider \(provider.name)")
        }
        let answer = try await ProviderHTTP.postForm(endpoints.token, fields: [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.callbackURL(callbackBase, provider: provider.name)),
            ("code_verifier", flow.verifier), ("client_id", provider.clientID),
        ], basic: secret.map { (provider.clientID, $0) })
        if let error = answer["error"]?.stringValue {
            throw Refusal.denied("\(provider.displayName) did not accept the sign-in's code (\(error.prefix(64))).")
        }
        let (claims, subject) = try await identify(answer, provider: provider, endpoints: endpoints, nonce: flow.nonce)
        let username = try await account(for: subject, provider: provider, claims: claims, flow: flow)
        var providerToken: SealedSecret?
        if provider.passesProviderToken, let token = answer["access_token"]?.stringValue {
            providerToken = try await auth.tokens.ring.store.seal(token, context: "provider-token:\(provider.name)")
        }
        let strataCode = RandomSecret.token(bytes: 32)
        try await store.insertCode(codeHash: RandomSecret.sha256Hex(strataCode), SignInCode(
            username: username, provider: provider.name, redirectURI: flow.redirectURI, codeChallenge: flow.codeChallenge,
            claims: JSONValue.object(claims).jsonString, providerToken: providerToken,
            expiresAt: AuthStore.seconds(auth.now) + Self.codeLifetime))
        logger.info("Signed in through an identity provider", metadata: ["provider": "\(provider.name)", "account": "\(username)"])
        return strataCode
    }

    /// Who signed in: from the ID token (OpenID Connect), checked as external tokens are plus the
    /// nonce; or from the user-info endpoint (plain OAuth 2), where `sub` or `id` names the user.
    private func identify(_ answer: JSONObject, provider: IdentityProvider, endpoints: ProviderEndpoints,
                          nonce: String) async throws -> (JSONObject, String) {
        switch provider.kind {
        case .oidc:
            guard let idToken = answer["id_token"]?.stringValue else {
                throw Refusal.denied("\(provider.displayName) sent no ID token.")
            }
            let checked: (claims: JSONObject, subject: String)
            do {
                checked = try await Federation.check(idToken, issuer: provider.issuer, audience: provider.clientID, now: auth.now) { kid in
                    try await directory.keys(for: provider, kid: kid)
                }
            } catch let error as ODataError {
                throw Refusal.denied("\(provider.displayName)'s ID token was refused: \(error.message)")
            }
            guard checked.claims["nonce"]?.stringValue == nonce else {
                throw Refusal.denied("\(provider.displayName)'s ID token is not for this sign-in (nonce).")
            }
            return (checked.claims, checked.subject)
        case .oauth2:
            guard let token = answer["access_token"]?.stringValue, let url = endpoints.userInfo else {
                throw Refusal.denied("\(provider.displayName) sent no access token.")
            }
            var claims = try await ProviderHTTP.getJSON(url, bearer: token)
            let subject: String?
            switch claims["sub"] ?? claims["id"] {
            case .string(let text)?: subject = text
            case .number(let number)?: subject = number
            default: subject = nil
            }
            guard let subject, !subject.isEmpty, subject.utf8.count <= 256 else {
                throw Refusal.denied("\(provider.displayName)'s user information names no user (sub or id).")
            }
            claims["sub"] = .string(subject)
            return (claims, subject)
        }
    }

    /// The account of a provider identity: the one it is linked to; the signed-in account for a
    /// linking flow; or a new one where the service allows sign-up.
    private func account(for subject: String, provider: IdentityProvider, claims: JSONObject, flow: SignInFlow) async throws -> String {
        let now = auth.now
        if let linkTo = flow.linkSubject {
            let owner = try await store.link(provider: provider.name, subject: subject, to: linkTo, now: now)
            guard owner == linkTo else {
                throw Refusal.denied("This \(provider.displayName) account is linked to another Strata account already.")
            }
            return owner
        }
        if let linked = try await store.linkedAccount(provider: provider.name, subject: subject) { return linked }
        let settings = try await store.serviceSignIns()[flow.service] ?? ServiceSignIn()
        guard settings.allowsSignUp else {
            throw Refusal.denied("No account is linked to this \(provider.displayName) sign-in, and \(flow.service) does not allow sign-up; ask its administrator.")
        }
        // Nobody knows this password: such an account signs in only through its providers.
        let hash = try await auth.hasher.hash(RandomSecret.token(bytes: 32))
        let roles = settings.signUpRole.map { [RoleAssignment(role: $0, service: flow.service)] } ?? []
        do {
            return try await store.createLinkedAccount(provider: provider.name, subject: subject,
                                                       candidate: Self.accountName(provider: provider.name, subject: subject, claims: claims),
                                                       passwordHash: hash, roles: roles, now: now)
        } catch let error as ODataError where error.status == 409 {
            throw Refusal.denied(error.message)
        }
    }

    /// A readable name for a new account: the provider's `preferred_username` or the local part of
    /// its email, else `provider-subject`; reduced to characters account names may hold.
    static func accountName(provider: String, subject: String, claims: JSONObject) -> String {
        let preferred = claims["preferred_username"]?.stringValue
            ?? claims["email"]?.stringValue.flatMap { $0.split(separator: "@").first.map(String.init) }
        var name = preferred.map { "\(provider).\($0)" } ?? "\(provider).\(subject)"
        name = String(name.unicodeScalars.filter { $0 != ":" && $0.properties.generalCategory != .control && !$0.properties.isWhitespace }.map(Character.init))
        if name.count > 100 { name = "\(provider).\(RandomSecret.sha256Hex(subject).prefix(32))" }
        return name
    }

    /// `uri` with query fields added (after an existing query), as redirects to apps carry them.
    static func appendingQuery(_ uri: String, _ fields: [(String, String)]) -> String {
        uri + (uri.contains("?") ? "&" : "?") + PercentEncoding.encodeForm(fields)
    }
}
