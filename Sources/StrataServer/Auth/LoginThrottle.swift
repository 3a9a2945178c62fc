import Foundation

/// Counts failed logins per account and per client address, and refuses further attempts (429)
/// once either has failed too often within a sliding window.
///
/// The counts live in this process's memory: a restart forgets them, and several servers in front
/// of one PostgreSQL database count separately. Failures count the same whether they came through
/// `/auth/token` or HTTP Basic. A blocked account stays blocked even for the right password until
/// its window moves on; otherwise the block would not slow down guessing.
actor LoginThrottle {
    private let maxPerAccount: Int
    private let maxPerAddress: Int
    private let window: TimeInterval
    private var accounts: [String: [Date]] = [:]
    private var addresses: [String: [Date]] = [:]
    /// Keys kept at most, per kind; beyond it, keys with no failure inside the window go first.
    private let capacity = 50_000

    init(settings: AuthSettings) {
        maxPerAccount = max(1, settings.maxFailuresPerAccount)
        maxPerAddress = max(1, settings.maxFailuresPerAddress)
        window = settings.failureWindow
    }

    /// Throws ``ThrottledError`` when the account or the address may not try now.
    func check(account: String, address: String, now: Date) throws(ThrottledError) {
        let waits = [wait(accounts[account], limit: maxPerAccount, now: now), wait(addresses[address], limit: maxPerAddress, now: now)]
        if let longest = waits.compactMap({ $0 }).max() {
            throw ThrottledError(retryAfter: max(1, Int(longest.rounded(.up))))
        }
    }

    func recordFailure(account: String, address: String, now: Date) {
        Self.append(now, to: &accounts, key: account, limit: maxPerAccount, window: window, capacity: capacity)
        Self.append(now, to: &addresses, key: address, limit: maxPerAddress, window: window, capacity: capacity)
    }

    /// A correct password clears the account's failures (not the address's: one valid account must
    /// not let an address keep guessing others).
    func recordSuccess(account: String) {
        accounts[account] = nil
    }

    /// Seconds until the oldest counted failure leaves the window, when the limit is reached.
    private func wait(_ failures: [Date]?, limit: Int, now: Date) -> TimeInterval? {
        guard let failures else { return nil }
        let recent = failures.filter { now.timeIntervalSince($0) < window }
        guard recent.count >= limit, let oldest = recent.suffix(limit).first else { return nil }
        return oldest.addingTimeInterval(window).timeIntervalSince(now)
    }

    private static func append(_ now: Date, to table: inout [String: [Date]], key: String, limit: Int,
                               window: TimeInterval, capacity: Int) {
        var failures = (table[key] ?? []).filter { now.timeIntervalSince($0) < window }
        failures.append(now)
        // Only the newest `limit` failures decide anything.
        table[key] = Array(failures.suffix(limit))
        if table.count > capacity {
            table = table.filter { _, dates in dates.contains { now.timeIntervalSince($0) < window } }
            while table.count > capacity, let victim = table.keys.first { table[victim] = nil }
        }
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
