import Foundation
import Logging
import StrataCore

extension HostedSignIn {
    /// Redeems a one-time Strata code at `/auth/token` (`grant_type=authorization_code`): the code
    /// must be unused and current, `redirectURI` the one the flow was started with, and `verifier`
    /// the one whose S256 challenge the app sent. A code is spent by its first presentation, right
    /// or wrong; presented again, the sign-in it opened is ended (RFC 6749 §4.1.2).
    package func redeem(code: String, verifier: String, redirectURI: String) async throws -> AuthRuntime.IssuedTokens {
        let codeHash = RandomSecret.sha256Hex(code)
        let stored: SignInCode
        switch try await store.redeemCode(codeHash: codeHash, now: AuthStore.seconds(auth.now)) {
        case .unknown: throw refuse(AuthErrors.refusedGrant("The code is not valid; sign in again."), provider: nil)
        case .expired: throw refuse(AuthErrors.refusedGrant("The code has expired; sign in again (codes last \(Self.codeLifetime) seconds)."), provider: nil)
        case .reused: throw refuse(AuthErrors.refusedGrant("The code was used before, so the sign-in it opened has been ended; sign in again."), provider: nil)
        case .redeemed(let code): stored = code
        }
        guard stored.redirectURI == redirectURI else {
            throw refuse(AuthErrors.refusedGrant("The redirect_uri is not the one the sign-in was started with."), provider: stored.provider)
        }
        guard PKCE.verifies(verifier, challenge: stored.codeChallenge) else {
            throw refuse(AuthErrors.refusedGrant("The code_verifier does not match the sign-in's code_challenge."), provider: stored.provider)
        }
        // A code of the sign-up form names no provider: the account signs in as with its password.
        let authenticator = auth.authenticator
        guard case .object(let claims)? = try? JSONValue.parse(stored.claims),
              let principal = stored.provider.isEmpty ? try await authenticator.accountPrincipal(stored.username, method: .token)
                : try await authenticator.providerPrincipal(stored.username, provider: stored.provider, claims: claims) else {
            throw refuse(AuthErrors.refusedGrant("The account or provider of this sign-in was removed; sign in again."), provider: stored.provider)
        }
        let issued = try await auth.openSession(for: principal, externalClaims: stored.provider.isEmpty ? nil : claims,
                                                providerToken: stored.providerToken.map(AuthStore.storedSecret))
        if let session = issued.session { try await store.attachSession(session, toCode: codeHash) }
        return issued
    }
}

extension Authenticator {
    /// The caller of a provider sign-in: the linked account with its roles, plus the roles the
    /// provider's rules give, and the claims its output rules make (`sub` is the account). Nil when
    /// the account or the provider no longer exists.
    func providerPrincipal(_ username: String, provider name: String, claims: JSONObject) async throws -> Principal? {
        guard var principal = try await accountPrincipal(username, method: .provider),
              let provider = try await store.providers(named: name).first?.provider else { return nil }
        principal.roles.formUnion(Federation.roles(for: claims, rules: provider.roleRules))
        principal.claims = ClaimOutput.apply(provider.claimRules, to: claims).merging(["sub": username]) { _, account in account }
        principal.provider = name
        return principal
    }
}
