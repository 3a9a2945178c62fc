import Foundation
import Logging
import StrataCore

extension HostedSignIn {
    /// The pseudo-account sign-up attempts are throttled under, per client address: five attempts
    /// per address and window (``AuthSettings/maxFailuresPerAccount``), as many as wrong passwords.
    static let signUpThrottleKey = "(sign-up)"

    /// Creates a password account in a service that allows sign-up (`POST /auth/sign-up`, the
    /// hosted page's form), with the role the service gives new accounts; answers its principal.
    ///
    /// Name and password rules are checked first and say exactly what to change; they reveal
    /// nothing about other accounts. Every attempt that passes them counts against the client's
    /// address as a failed login does, and pays for one bcrypt hash whether or not the name is
    /// free, so the only thing an answer tells about existing accounts is that one name is taken,
    /// at most five names per address per window.
    package func signUp(service: String, username: String, password: String, client: String) async throws -> Principal {
        guard let settings = try await store.serviceSignIns()[service], settings.allowsSignUp else {
            throw refuse(AuthErrors.forbidden("The service \(service) does not let people create their own accounts."), provider: nil)
        }
        try AuthNames.checkUsername(username)
        try PasswordRules.check(password, username: username)
        let throttle = auth.authenticator.throttle, now = auth.now
        do {
            _ = try await throttle.check(account: Self.signUpThrottleKey, address: client, now: now)
        } catch let error as ThrottledError {
            _ = refuse(error.odataError, provider: nil)
            throw error
        }
        let hash = try await auth.hasher.hash(password)
        try await throttle.recordFailure(account: Self.signUpThrottleKey, address: client, now: now)
        if settings.signUpRole == BuiltInRole.admin.rawValue { throw AuthErrors.forbidden("New accounts may not be administrators.") }
        let roles = settings.signUpRole.map { [RoleAssignment(role: $0, service: service)] } ?? []
        let created = try await store.write { connection in
            try await store.insertAccount(username, passwordHash: hash, roles: roles, createdAt: AuthStore.seconds(now), connection)
        }
        guard created else {
            throw refuse(ODataError(status: 409, code: "Conflict", message: "This account name cannot be used; choose another."), provider: nil)
        }
        logger.info("An account signed up", metadata: ["service": "\(service)", "account": "\(username)"])
        return Authenticator.accountPrincipal(username, roles: roles, method: .token)
    }

    /// A one-time code for a password account (the hosted page's sign-up form), redeemed at
    /// `/auth/token` as a provider sign-in's code is; answers the app's redirect with it.
    package func code(for username: String, app: HostedSignIn.AppRequest) async throws -> String {
        let code = RandomSecret.token(bytes: 32)
        try await store.insertCode(codeHash: RandomSecret.sha256Hex(code), SignInCode(
            username: username, provider: "", redirectURI: app.redirectURI, codeChallenge: app.codeChallenge, claims: "{}",
            providerToken: nil, expiresAt: AuthStore.seconds(auth.now) + Self.codeLifetime))
        return Self.appendingQuery(app.redirectURI, [("code", code), ("state", app.state)])
    }
}
