import Crypto
import Foundation
import StrataCore

/// Shows the user a sign-in page and hands back where it finally sent them: the app's redirect URI
/// with a code (or an error) in its query.
///
/// - Parameters:
///   - url: the page to open (Strata's `/auth/authorize`, which sends the user on to the provider).
///   - redirectURI: the app's redirect URI; the presenter finishes when the browser reaches it.
/// - Returns: the URL the browser was sent to, starting with `redirectURI`.
///
/// On Apple platforms ``AuthSession/webAuthenticationPresenter(prefersEphemeralSession:)`` is one,
/// built on `ASWebAuthenticationSession`; a command line listens on a loopback port; tests drive the
/// provider's login form over HTTP.
public typealias SignInPresenter = @Sendable (_ url: URL, _ redirectURI: URL) async throws -> URL

/// An identity provider a server offers on its hosted sign-in (`GET /auth/providers`).
public struct SignInProvider: Sendable, Hashable, Identifiable {
    /// The name ``AuthSession/signIn(with:redirectURI:service:presenter:)`` takes.
    public var name: String
    /// What a button should say after "Sign in with".
    public var displayName: String
    public var iconURL: URL?
    /// `oidc` or `oauth2`.
    public var kind: String

    public var id: String { name }
}

/// What the current access token says about the signed-in user (read from the token, which the
/// server signed; the server checks it on every request, the app only reads it).
public struct SignInClaims: Sendable, Hashable {
    /// The account name.
    public var subject: String
    /// Roles as the server names them: `editor` for every service, `reader@hockey` for one.
    public var roles: [String]
    /// The claims the identity provider's rules passed to the app (`email`, a renamed `name`, …);
    /// empty for a password sign-in.
    public var claims: [String: String]
    public var expiresAt: Date?
}

extension AuthSession {
    /// The identity providers the server offers.
    public func providers() async throws(StrataError) -> [SignInProvider] {
        let response = try await connection.send(StrataRequest(.get, "/auth/providers", headers: ["Accept": "application/json"],
                                                               isAuthenticated: false)).requireSuccess()
        guard let list = try response.json()["providers"]?.arrayValue else {
            throw ResponseReader.invalid(response, "The provider list has no providers")
        }
        return list.compactMap { item in
            guard let name = item["name"]?.stringValue else { return nil }
            return SignInProvider(name: name, displayName: item["displayName"]?.stringValue ?? name,
                                  iconURL: item["icon"]?.stringValue.flatMap(URL.init(string:)), kind: item["kind"]?.stringValue ?? "oidc")
        }
    }

    /// Signs in through an identity provider (hosted sign-in, RFC 8252): opens the server's
    /// `/auth/authorize` with `presenter`, checks the `state` that comes back, and redeems the
    /// one-time code with this call's PKCE verifier. The tokens are stored and refreshed as after
    /// ``signIn(username:password:)``.
    ///
    /// - Parameters:
    ///   - provider: a name from ``providers()``.
    ///   - redirectURI: the app's redirect URI, registered for the service on the server
    ///     (`strata service sign-in SERVICE --redirect-uri …`).
    ///   - service: the service whose registration applies; needed only when several register the URI.
    /// - Throws: ``StrataError/Kind/forbidden`` when the provider or Strata refused the sign-in (the
    ///   message says why: no linked account, a refused ID token, the user cancelled at the provider).
    @discardableResult
    public func signIn(with provider: String, redirectURI: URL, service: String? = nil,
                       presenter: SignInPresenter) async throws(StrataError) -> Tokens {
        let pkce = PKCEPair()
        let state = PKCEPair.randomText(bytes: 16)
        var fields = [("provider", provider), ("redirect_uri", redirectURI.absoluteString), ("code_challenge", pkce.challenge),
                      ("code_challenge_method", "S256"), ("state", state)]
        if let service { fields.append(("service", service)) }
        guard let start = URL(string: "auth/authorize?" + PercentEncoding.encodeForm(fields), relativeTo: serverURL)?.absoluteURL else {
            throw StrataError(.invalidRequest, url: serverURL, message: "Cannot make the sign-in URL from \(serverURL).")
        }
        return try await finishSignIn(opening: start, state: state, pkce: pkce, redirectURI: redirectURI, presenter: presenter)
    }

    /// Links another identity provider to the signed-in account: after this, signing in with
    /// `provider` signs in to this account. Runs the same flow as ``signIn(with:redirectURI:service:presenter:)``
    /// and keeps the tokens it ends with.
    @discardableResult
    public func link(_ provider: String, redirectURI: URL, service: String? = nil,
                     presenter: SignInPresenter) async throws(StrataError) -> Tokens {
        let pkce = PKCEPair()
        let state = PKCEPair.randomText(bytes: 16)
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in [("provider", provider), ("redirect_uri", redirectURI.absoluteString), ("code_challenge", pkce.challenge),
                              ("code_challenge_method", "S256"), ("state", state)] + (service.map { [("service", $0)] } ?? []) {
            writer.key(name)
            writer.string(value)
        }
        writer.endObject()
        var request = StrataRequest.json(.post, "/auth/link", body: writer.bytes)
        request.headers["Authorization"] = try await authorization()
        request.isAuthenticated = false
        let response = try await connection.send(request).requireSuccess()
        guard let location = try response.json()["location"]?.stringValue, let url = URL(string: location) else {
            throw ResponseReader.invalid(response, "The link answer has no location")
        }
        return try await finishSignIn(opening: url, state: state, pkce: pkce, redirectURI: redirectURI, presenter: presenter)
    }

    /// Creates a password account in a service that allows sign-up (`POST /auth/sign-up`) and
    /// signs in to it.
    ///
    /// - Throws: ``StrataError/Kind/badRequest`` for a name or password the rules refuse (the
    ///   message says which rule), ``StrataError/Kind/conflict`` for a name that cannot be used,
    ///   ``StrataError/Kind/forbidden`` where the service does not allow sign-up.
    @discardableResult
    public func signUp(service: String, username: String, password: String) async throws(StrataError) -> Tokens {
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in [("service", service), ("username", username), ("password", password)] {
            writer.key(name)
            writer.string(value)
        }
        writer.endObject()
        return try await obtainTokens(.json(.post, "/auth/sign-up", body: writer.bytes))
    }

    /// What the current access token says: the account, its roles and the provider's claims; nil
    /// when signed out.
    public var claims: SignInClaims? {
        get async throws(StrataError) {
            guard let tokens = try await currentTokens else { return nil }
            let parts = tokens.accessToken.split(separator: ".")
            guard parts.count == 3, let bytes = Base64URL.decode(parts[1]), case .object(let payload)? = try? JSONValue.parse(bytes),
                  let subject = payload["sub"]?.stringValue else {
                throw StrataError(.decoding, url: serverURL, message: "The access token is not a JWT whose claims can be read.")
            }
            var claims: [String: String] = [:]
            if case .object(let object)? = payload["claims"] {
                for (name, value) in object { if let text = value.stringValue { claims[name] = text } }
            }
            return SignInClaims(subject: subject, roles: (payload["roles"]?.arrayValue ?? []).compactMap(\.stringValue), claims: claims,
                                expiresAt: tokens.expiresAt)
        }
    }

    /// The identity provider's own access token of this sign-in, for calling the provider's API
    /// (`GET /auth/me/provider-token`); only for providers configured to pass it.
    public func providerAccessToken() async throws(StrataError) -> String {
        let response = try await connection.send(StrataRequest(.get, "/auth/me/provider-token", headers: [
            "Accept": "application/json", "Authorization": try await authorization() ?? "",
        ], isAuthenticated: false)).requireSuccess()
        guard let token = try response.json()["access_token"]?.stringValue else {
            throw ResponseReader.invalid(response, "The answer has no access_token")
        }
        return token
    }

    private func finishSignIn(opening url: URL, state: String, pkce: PKCEPair, redirectURI: URL,
                              presenter: SignInPresenter) async throws(StrataError) -> Tokens {
        let returned: URL
        do {
            returned = try await presenter(url, redirectURI)
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.cancelled, url: url, message: "The sign-in page was closed before it finished (\(error)).", underlying: error)
        }
        let query = Self.queryFields(returned)
        // Only the answer to this call's request counts: another page could send the app a code.
        guard query["state"] == state else {
            throw StrataError(.forbidden, url: returned, message: "The sign-in came back with another state than it was started with; start it again.")
        }
        if let error = query["error"] {
            throw StrataError(.forbidden, code: error, url: returned, message: query["error_description"] ?? "The sign-in was refused (\(error)).")
        }
        guard let code = query["code"] else {
            throw StrataError(.invalidResponse, url: returned, message: "The sign-in came back without a code.")
        }
        return try await obtainTokens(Self.form([
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", pkce.verifier),
            ("redirect_uri", redirectURI.absoluteString),
        ]))
    }

    private static func queryFields(_ url: URL) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] where fields[item.name] == nil {
            fields[item.name] = item.value ?? ""
        }
        return fields
    }
}

/// A PKCE verifier and its S256 challenge (RFC 7636).
struct PKCEPair: Sendable {
    let verifier: String
    let challenge: String

    init() {
        verifier = Self.randomText(bytes: 32)
        challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    static func randomText(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
