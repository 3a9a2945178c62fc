import Foundation

/// How Strata signs people in: password hashing, token lifetimes, login throttling, and the clock.
public struct AuthSettings: Sendable {
    /// bcrypt's cost (log2 of its rounds), 4…31. Each step doubles the time a password check takes;
    /// 12 costs a few hundred milliseconds. Tests lower it to stay fast.
    public var passwordHashCost: Int
    /// How long an access token is valid (120 minutes, as the hockey sample's token service issued them).
    public var accessTokenLifetime: TimeInterval
    /// How long a sign-in may be kept alive with refresh tokens before the password is needed again.
    public var sessionLifetime: TimeInterval
    /// The `iss` of Strata's own tokens.
    public var tokenIssuer: String
    /// The `aud` of Strata's own tokens, and the audience they must name to be accepted.
    public var tokenAudience: String
    /// Failed logins for one account from one client address within ``failureWindow`` before logins
    /// to that account from that address answer 429; failures of the account from anywhere beyond
    /// this many delay its logins (``accountDelay``), never refuse them.
    public var maxFailuresPerAccount: Int
    /// Failed logins from one client address within ``failureWindow`` before its logins answer 429.
    public var maxFailuresPerAddress: Int
    /// The sliding window failures are counted in; a blocked login may retry when its oldest counted failure leaves it.
    public var failureWindow: TimeInterval
    /// The delay before checking the password of an account that failed ``maxFailuresPerAccount``
    /// times from anywhere; it doubles with each further failure.
    public var accountDelay: Duration = .milliseconds(250)
    /// The longest such delay: what the owner of an account under attack waits at most.
    public var maxAccountDelay: Duration = .seconds(4)
    /// Sign-ins one client address may have started (`/auth/authorize`) and not finished within
    /// their ten minutes before it is answered 429: each start stores a flow, and nobody needs to
    /// be signed in to start one. Generous for people behind one NAT; it bounds what one address
    /// can make the system database keep.
    public var maxOpenSignInsPerAddress = 50
    /// How long a successful HTTP Basic check is remembered, so that a client sending the same
    /// credentials on every request does not pay for bcrypt each time. 0 turns the memory off.
    public var basicCredentialMemory: TimeInterval
    /// How long the server answers from memory before reading the system database again: anonymous
    /// access, table grants, and the account, roles and sign-in behind a recently verified access
    /// token. Changes made through the server (`/admin`, signing out) apply to the next request. On
    /// a PostgreSQL system database, changes made through another server or process are pushed
    /// (`LISTEN`/`NOTIFY`) and apply at the next request too, and this age is only the fallback for
    /// when the server's listening connection is down; on SQLite, changes made by another process
    /// on the same data (`strata grant`, `strata user remove`) apply within this time.
    public var cacheMaxAge: TimeInterval
    /// The age that applies instead of ``cacheMaxAge`` while changes are pushed to the server (its
    /// listening connection is up): it only bounds what a lost notification could cost. Never
    /// shorter than ``cacheMaxAge``.
    public var pushedCacheMaxAge: TimeInterval = 60
    /// Load balancers whose `X-Forwarded-For` names the client that throttling counts (the server's
    /// `--trusted-proxy`, also ``StrataConfiguration/trustedProxies``).
    public var trustedProxies = TrustedProxies.none
    /// The algorithm of the first token signing key, made when the system database has none
    /// (`--token-algorithm`); later keys take theirs from `strata keys rotate --algorithm`.
    public var tokenAlgorithm = TokenAlgorithm.hs256
    /// The secret the signing keys are sealed with in the system database (`STRATA_KEY_SECRET`,
    /// `--key-secret-file`); nil: with the data directory's `key-encryption.key`.
    public var keySecret: KeySecret?
    /// The current time; tests move it to expire tokens and throttling windows.
    public var now: @Sendable () -> Date
    /// Where `--demo` prints the generated password of the `editor` account, once. Standard output,
    /// never the log.
    public var announce: @Sendable (String) -> Void

    public init(
        passwordHashCost: Int = 12,
        accessTokenLifetime: TimeInterval = 120 * 60,
        sessionLifetime: TimeInterval = 30 * 24 * 3600,
        tokenIssuer: String = "strata",
        tokenAudience: String = "strata",
        maxFailuresPerAccount: Int = 5,
        maxFailuresPerAddress: Int = 20,
        failureWindow: TimeInterval = 15 * 60,
        basicCredentialMemory: TimeInterval = 60,
        cacheMaxAge: TimeInterval = 1,
        now: @escaping @Sendable () -> Date = { Date() },
        announce: @escaping @Sendable (String) -> Void = { text in
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    ) {
        self.passwordHashCost = passwordHashCost
        self.accessTokenLifetime = accessTokenLifetime
        self.sessionLifetime = sessionLifetime
        self.tokenIssuer = tokenIssuer
        self.tokenAudience = tokenAudience
        self.maxFailuresPerAccount = maxFailuresPerAccount
        self.maxFailuresPerAddress = maxFailuresPerAddress
        self.failureWindow = failureWindow
        self.basicCredentialMemory = basicCredentialMemory
        self.cacheMaxAge = cacheMaxAge
        self.now = now
        self.announce = announce
    }
}
