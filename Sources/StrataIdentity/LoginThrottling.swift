import Foundation

/// Counts failed logins and says when a login may be tried (see ``LoginThrottle`` for the rules).
///
/// Two implementations answer the same way: ``LoginThrottle`` in the server's memory (SQLite, where
/// one server owns the data) and ``SharedLoginThrottle`` in the PostgreSQL system database, where
/// every server on the database counts the same failures. Both decide with ``decide(addressWait:pairWait:accountFailures:settings:)``.
protocol LoginThrottling: Sendable {
    /// Throws ``ThrottledError`` when the address, or the account from this address, may not try
    /// now; otherwise answers how long to wait before checking the password (zero unless the
    /// account has failed often from anywhere).
    func check(account: String, address: String, now: Date) async throws -> Duration

    func recordFailure(account: String, address: String, now: Date) async throws

    /// A correct password clears the failures of the account from this address.
    func recordSuccess(account: String, address: String) async throws
}

extension LoginThrottling {
    /// The rule both throttles apply to what they counted: `addressWait` and `pairWait` are the
    /// seconds until the oldest counted failure of a key that reached its limit leaves the window
    /// (nil below the limit); `accountFailures` is the account's failures from anywhere in the window.
    static func decide(addressWait: TimeInterval?, pairWait: TimeInterval?, accountFailures: Int,
                       settings: AuthSettings) throws(ThrottledError) -> Duration {
        if let longest = [addressWait, pairWait].compactMap({ $0 }).max() {
            throw ThrottledError(retryAfter: max(1, Int(longest.rounded(.up))))
        }
        let beyond = accountFailures - max(1, settings.maxFailuresPerAccount)
        guard beyond >= 0 else { return .zero }
        let delay = settings.accountDelay * Double(1 << min(beyond, 20))
        return min(delay, settings.maxAccountDelay)
    }

    /// Failures of an account kept or counted at most: enough to reach the longest delay.
    static func accountCap(_ settings: AuthSettings) -> Int {
        max(1, settings.maxFailuresPerAccount) + 32
    }
}
