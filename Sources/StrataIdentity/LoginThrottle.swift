import Foundation

/// Slows password guessing without handing anyone a way to lock an account out.
///
/// Failed logins are counted, within a sliding window, in three ways:
/// - per client address: past ``AuthSettings/maxFailuresPerAddress``, every login from that address
///   answers 429 until its failures age out (one source guessing many accounts);
/// - per account *and* address: past ``AuthSettings/maxFailuresPerAccount``, logins to that account
///   from that address answer 429 (one source guessing one account) — also with the right
///   password, since the server cannot tell that source's user from its attacker;
/// - per account, from anywhere: past the same number, each further attempt at the account is
///   answered only after a delay that doubles with every failure, up to
///   ``AuthSettings/maxAccountDelay``. Never a refusal: the account's owner, at another address,
///   signs in after at most that delay while guesses from many addresses cost each a held request.
///
/// This throttle keeps the counts in the process's memory: a restart forgets them. It serves a
/// SQLite system database, which one server owns; on PostgreSQL, where several servers share the
/// database, ``SharedLoginThrottle`` keeps the same counts in the database with the same rules, so
/// that N servers stop a guesser at the count one server would. Failures count the same whether they
/// came through `/auth/token` or HTTP Basic.
actor LoginThrottle: LoginThrottling {
    private let settings: AuthSettings
    private var addresses = FailureLog()
    private var pairs = FailureLog()
    private var accounts = FailureLog()

    init(settings: AuthSettings) {
        self.settings = settings
    }

    /// Throws ``ThrottledError`` when the address, or the account from this address, may not try
    /// now; otherwise answers how long to wait before checking the password (zero unless the
    /// account has failed often from anywhere).
    func check(account: String, address: String, now: Date) throws(ThrottledError) -> Duration {
        let window = settings.failureWindow
        return try Self.decide(
            addressWait: addresses.wait(address, limit: max(1, settings.maxFailuresPerAddress), window: window, now: now),
            pairWait: pairs.wait(Self.pair(account, address), limit: max(1, settings.maxFailuresPerAccount), window: window, now: now),
            accountFailures: accounts.count(account, window: window, now: now), settings: settings)
    }

    func recordFailure(account: String, address: String, now: Date) {
        let window = settings.failureWindow
        addresses.record(address, now: now, window: window, keep: max(1, settings.maxFailuresPerAddress))
        pairs.record(Self.pair(account, address), now: now, window: window, keep: max(1, settings.maxFailuresPerAccount))
        accounts.record(account, now: now, window: window, keep: Self.accountCap(settings))
    }

    /// A correct password clears the failures of the account from this address (not the address's
    /// own: one valid account must not let an address keep guessing others; nor the account's from
    /// elsewhere: its owner signing in does not stop a guesser).
    func recordSuccess(account: String, address: String) {
        pairs.clear(Self.pair(account, address))
    }

    private static func pair(_ account: String, _ address: String) -> String {
        account + "\u{0}" + address
    }
}

/// Failure times by key within a sliding window, the newest few per key, for a bounded number of keys.
private struct FailureLog {
    private var failures: [String: [Date]] = [:]
    /// Keys kept at most; beyond it, keys with no failure inside the window go first.
    private let capacity = 50_000

    func count(_ key: String, window: TimeInterval, now: Date) -> Int {
        failures[key]?.count { now.timeIntervalSince($0) < window } ?? 0
    }

    /// Seconds until the oldest counted failure leaves the window, when `limit` is reached.
    func wait(_ key: String, limit: Int, window: TimeInterval, now: Date) -> TimeInterval? {
        guard let dates = failures[key] else { return nil }
        let recent = dates.filter { now.timeIntervalSince($0) < window }
        guard recent.count >= limit, let oldest = recent.suffix(limit).first else { return nil }
        return oldest.addingTimeInterval(window).timeIntervalSince(now)
    }

    mutating func record(_ key: String, now: Date, window: TimeInterval, keep: Int) {
        var dates = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
        dates.append(now)
        failures[key] = Array(dates.suffix(keep))
        if failures.count > capacity {
            failures = failures.filter { _, dates in dates.contains { now.timeIntervalSince($0) < window } }
            while failures.count > capacity, let victim = failures.keys.first { failures[victim] = nil }
        }
    }

    mutating func clear(_ key: String) {
        failures[key] = nil
    }
}

/// Successful HTTP Basic checks, remembered briefly so that a client sending its credentials on
/// every request pays for bcrypt once a minute rather than on each request.
///
/// Entries are keyed by a SHA-256 over the name, the password and the stored hash: a changed
/// password (a new hash) misses, and the memory holds no password text.
actor BasicCredentialMemory {
    private let lifetime: TimeInterval
    private var entries: [String: Date] = [:]
    private let capacity = 10_000

    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    static func key(username: String, password: String, storedHash: String) -> String {
        RandomSecret.sha256Hex(username + "\u{0}" + password + "\u{0}" + storedHash)
    }

    func remembers(_ key: String, now: Date) -> Bool {
        guard lifetime > 0, let expiry = entries[key] else { return false }
        if expiry <= now {
            entries[key] = nil
            return false
        }
        return true
    }

    func remember(_ key: String, now: Date) {
        guard lifetime > 0 else { return }
        if entries.count >= capacity {
            entries = entries.filter { $0.value > now }
            if entries.count >= capacity { entries.removeAll() }
        }
        entries[key] = now.addingTimeInterval(lifetime)
    }
}
