import Foundation
import StrataCore

/// A signed-in user of a Strata server: signs in, keeps the access token fresh, and signs every
/// request of the connections it is given to.
///
/// ```swift
/// let auth = AuthSession(serverURL: URL(string: "http://127.0.0.1:8080")!)
/// try await auth.signIn(username: "editor", password: password)
/// let hockey = DataService(url: URL(string: "http://127.0.0.1:8080/hockey/")!,
///                          configuration: ConnectionConfiguration(authenticator: auth))
/// ```
///
/// The access token is refreshed shortly before it expires (``refreshMargin``) and once when the
/// server answers 401. However many requests need a fresh token at the same moment, one refresh is
/// in flight and they all wait for it: refresh tokens are single use, and a server that sees one
/// twice revokes the session.
public actor AuthSession: RequestAuthenticator {
    /// The server root; tokens come from `/auth/token` below it.
    public nonisolated let serverURL: URL
    /// The connection token requests go through (observe it to watch sign-ins and refreshes).
    public nonisolated let connection: Connection
    /// How long before expiry a token is refreshed.
    public nonisolated let refreshMargin: TimeInterval

    private let store: any TokenStore
    private let now: @Sendable () -> Date
    private var tokens: Tokens?
    private var loaded = false
    private var refreshing: Task<Result<Tokens, StrataError>, Never>?

    /// - Parameters:
    ///   - serverURL: the server root, such as `http://127.0.0.1:8080`.
    ///   - store: where tokens are kept; tokens already there are used without signing in again.
    ///   - configuration: for the token connection (headers, timeout); its authenticator is ignored.
    ///   - refreshMargin: refresh this many seconds before the access token expires.
    ///   - now: the clock, for tests.
    public init(
        serverURL: URL,
        store: any TokenStore = MemoryTokenStore(),
        configuration: ConnectionConfiguration = ConnectionConfiguration(),
        refreshMargin: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var tokenConfiguration = configuration
        tokenConfiguration.authenticator = nil
        self.serverURL = serverURL
        self.connection = Connection(baseURL: serverURL, configuration: tokenConfiguration)
        self.refreshMargin = refreshMargin
        self.store = store
        self.now = now
    }

    /// The current tokens, nil when signed out.
    public var currentTokens: Tokens? {
        get async throws(StrataError) { try await loadedTokens() }
    }

    /// Whether there are tokens to send.
    public var isSignedIn: Bool {
        get async { ((try? await loadedTokens()) ?? nil) != nil }
    }

    /// Signs in with a user name and password (`POST /auth/token`).
    ///
    /// - Throws: ``StrataError/Kind/forbidden`` for wrong credentials (the server does not say
    ///   which part was wrong), ``StrataError/Kind/tooManyRequests`` after repeated failures.
    @discardableResult
    public func signIn(username: String, password: String) async throws(StrataError) -> Tokens {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("username")
        writer.string(username)
        writer.key("password")
        writer.string(password)
        writer.endObject()
        return try await obtainTokens(.json(.post, "/auth/token", body: writer.bytes))
    }

    /// Exchanges a token from a trusted identity provider for Strata tokens (RFC 8693 token exchange).
    @discardableResult
    public func exchange(externalToken: String, tokenType: String = "urn:ietf:params:oauth:token-type:jwt") async throws(StrataError) -> Tokens {
        try await obtainTokens(Self.form([
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("subject_token", externalToken),
            ("subject_token_type", tokenType),
        ]))
    }

    /// Signs out: the server revokes the refresh token (`POST /auth/logout`) and the stored tokens
    /// are removed. Local tokens are removed even when the server cannot be told.
    public func signOut() async throws(StrataError) {
        guard let current = try await loadedTokens() else { return }
        refreshing?.cancel()
        refreshing = nil
        try await save(nil)
        var request = StrataRequest(.post, "/auth/logout", headers: ["Authorization": current.authorization], isAuthenticated: false)
        if let refresh = current.refreshToken {
            request = Self.form([("refresh_token", refresh)], path: "/auth/logout")
            request.headers["Authorization"] = current.authorization
        }
        let response = try await connection.send(request)
        // A 401 means the server already considers the tokens dead, which is what signing out wants.
        if response.status != 401 { try response.requireSuccess() }
    }

    /// Obtains new tokens with the refresh token now, or joins a refresh already in flight.
    @discardableResult
    public func refresh() async throws(StrataError) -> Tokens {
        guard let current = try await loadedTokens() else {
            throw StrataError(.notSignedIn, url: serverURL, message: "Not signed in; call signIn(username:password:) first.")
        }
        return try await refreshOnce(replacing: current)
    }

    // MARK: RequestAuthenticator

    public func authorization() async throws(StrataError) -> String? {
        guard var current = try await loadedTokens() else { return nil }
        if let expiresAt = current.expiresAt, current.refreshToken != nil,
           expiresAt.timeIntervalSince(now()) <= refreshMargin {
            current = try await refreshOnce(replacing: current)
        }
        return current.authorization
    }

    public func refreshAfterRejection(of authorization: String?) async throws(StrataError) -> Bool {
        guard let current = try await loadedTokens() else { return false }
        // Another request already replaced the rejected token: retry with the new one.
        if current.authorization != authorization { return true }
        guard current.refreshToken != nil else { return false }
        do {
            _ = try await refreshOnce(replacing: current)
            return true
        } catch where [.unauthorized, .forbidden, .badRequest].contains(error.kind) {
            // The refresh token is dead too; refreshOnce signed out, and the caller gets the 401.
            return false
        }
    }

    // MARK: Internals

    private func loadedTokens() async throws(StrataError) -> Tokens? {
        if !loaded {
            do {
                tokens = try await store.loadTokens()
            } catch {
                throw StrataError(.invalidRequest, url: serverURL, message: "Cannot read the stored tokens: \(error)", underlying: error)
            }
            loaded = true
        }
        return tokens
    }

    private func save(_ new: Tokens?) async throws(StrataError) {
        tokens = new
        loaded = true
        do {
            try await store.saveTokens(new)
        } catch {
            throw StrataError(.invalidRequest, url: serverURL, message: "Cannot store the tokens: \(error)", underlying: error)
        }
    }

    /// Runs at most one refresh at a time; callers that arrive while one runs wait for its result.
    private func refreshOnce(replacing current: Tokens) async throws(StrataError) -> Tokens {
        if let refreshing { return try await refreshing.value.get() }
        // A refresh finished while this caller waited for the actor: use its tokens.
        if let tokens, tokens != current { return tokens }
        let task = Task { await self.performRefresh(current) }
        refreshing = task
        let result = await task.value
        refreshing = nil
        return try result.get()
    }

    private func performRefresh(_ current: Tokens) async -> Result<Tokens, StrataError> {
        guard let refreshToken = current.refreshToken else {
            return .failure(StrataError(.unauthorized, url: serverURL, message: "The access token expired and there is no refresh token; sign in again."))
        }
        do {
            let request = Self.form([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
            let new = try await requestTokens(request, previousRefreshToken: refreshToken)
            // Signed out (or in again) meanwhile: these tokens must not bring the old session back.
            guard tokens == current else {
                return .failure(StrataError(.notSignedIn, url: serverURL, message: "Signed out while the tokens were being refreshed."))
            }
            try await save(new)
            return .success(new)
        } catch {
            if [.unauthorized, .forbidden, .badRequest].contains(error.kind), tokens == current {
                try? await save(nil)
                var expired = error
                expired.message = "The session has expired (\(error.message)); sign in again."
                return .failure(expired)
            }
            return .failure(error)
        }
    }

    /// Sends a request that answers tokens (a sign-in of any kind) and keeps them.
    func obtainTokens(_ request: StrataRequest) async throws(StrataError) -> Tokens {
        let new = try await requestTokens(request)
        try await save(new)
        return new
    }

    private func requestTokens(_ request: StrataRequest, previousRefreshToken: String? = nil) async throws(StrataError) -> Tokens {
        var request = request
        request.isAuthenticated = false
        request.headers["Accept"] = "application/json"
        let response = try await connection.send(request).requireSuccess()
        return try Tokens.read(response, now: now(), previousRefreshToken: previousRefreshToken)
    }

    /// An `application/x-www-form-urlencoded` POST, as OAuth token endpoints take.
    static func form(_ fields: [(String, String)], path: String = "/auth/token") -> StrataRequest {
        let body = PercentEncoding.encodeForm(fields)
        return StrataRequest(.post, path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8), isAuthenticated: false)
    }
}
