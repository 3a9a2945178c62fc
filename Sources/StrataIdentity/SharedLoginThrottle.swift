import Foundation
import StrataCore
import StrataSQL
import Synchronization
import StrataStorage

/// ``LoginThrottle``'s rules, counted in the PostgreSQL system database (`auth_failures`, see
/// `SystemDatabase+LoginFailures.swift`), so that every server on the database counts every
/// server's failures: N servers stop a guesser at the count one server would.
///
/// Each failure is a row of its own, inserted and committed before the login answers, and never a
/// counter that is read, changed and written back: two servers recording at once cannot lose each
/// other's failure. A check counts the rows in the window, so every login that starts after a
/// failure has been answered counts it. What can slip past a limit are only logins checked while
/// others were still being decided (their passwords being hashed), exactly as on one server with
/// the counts in memory: the overshoot is bounded by the attempts in flight. Nothing is locked
/// across the password check: a lock per key held for the bcrypt time would keep a pooled
/// connection per login and let one address's guesses queue everyone's logins behind them.
///
/// Old rows are removed cheaply: recording a failure deletes its own keys' rows that left the
/// window, and at most once a minute a server deletes up to a thousand expired rows of any key.
final class SharedLoginThrottle: LoginThrottling {
    let system: SystemDatabase
    let settings: AuthSettings
    private let lastPrune = Mutex<ContinuousClock.Instant?>(nil)

    /// Rows removed per prune, and how often one server prunes.
    static let pruneBatch: Int64 = 1000
    static let pruneInterval: Duration = .seconds(60)

    init(system: SystemDatabase, settings: AuthSettings) {
        self.system = system
        self.settings = settings
    }

    private enum Kind: String {
        case address, pair, account
    }

    /// The stored key: a SHA-256, so that names of any length or content fit the column and none is stored.
    private static func key(_ parts: String...) -> String {
        RandomSecret.sha256Hex(parts.joined(separator: "\u{0}"))
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private var windowMilliseconds: Int64 { Int64((settings.failureWindow * 1000).rounded(.up)) }

    func check(account: String, address: String, now: Date) async throws -> Duration {
        let table = system.table("auth_failures")
        let nowMs = Self.milliseconds(now), since = nowMs - windowMilliseconds
        let addressLimit = Int64(max(1, settings.maxFailuresPerAddress)), pairLimit = Int64(max(1, settings.maxFailuresPerAccount))
        // The limit-th newest failure of a key, when it has that many in the window: when it leaves
        // the window, the key is under its limit again.
        let statement: SQL = """
            SELECT \
            (SELECT "at_ms" FROM \(table) WHERE "kind" = \(bind: .string(Kind.address.rawValue)) AND "key" = \(bind: .string(Self.key(address))) \
            AND "at_ms" > \(bind: .int64(since)) ORDER BY "at_ms" DESC LIMIT 1 OFFSET \(bind: .int64(addressLimit - 1))), \
            (SELECT "at_ms" FROM \(table) WHERE "kind" = \(bind: .string(Kind.pair.rawValue)) AND "key" = \(bind: .string(Self.key(account, address))) \
            AND "at_ms" > \(bind: .int64(since)) ORDER BY "at_ms" DESC LIMIT 1 OFFSET \(bind: .int64(pairLimit - 1))), \
            (SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE "kind" = \(bind: .string(Kind.account.rawValue)) \
            AND "key" = \(bind: .string(Self.key(account))) AND "at_ms" > \(bind: .int64(since)) \
            LIMIT \(bind: .int64(Int64(Self.accountCap(settings))))) AS "recent")
            """
        let rows = try await system.database.read { connection in
            try await connection.query(statement, types: [.int64, .int64, .int64])
        }
        let row = rows.rows.first ?? [.null, .null, .null]
        let window = windowMilliseconds
        let wait: (ODataValue) -> TimeInterval? = { value in
            value.integerValue.map { Double($0 + window - nowMs) / 1000 }
        }
        return try Self.decide(addressWait: wait(row[0]), pairWait: wait(row[1]),
                               accountFailures: Int(row[2].integerValue ?? 0), settings: settings)
    }

    func recordFailure(account: String, address: String, now: Date) async throws {
        let table = system.table("auth_failures")
        let nowMs = Self.milliseconds(now), since = nowMs - windowMilliseconds
        let keys: [(Kind, String)] = [(.address, Self.key(address)), (.pair, Self.key(account, address)), (.account, Self.key(account))]
        try await system.database.transaction { connection in
            for (kind, key) in keys {
                try await connection.execute("""
                    DELETE FROM \(table) WHERE "kind" = \(bind: .string(kind.rawValue)) AND "key" = \(bind: .string(key)) \
                    AND "at_ms" <= \(bind: .int64(since))
                    """)
            }
            let values: [SQL] = keys.map { kind, key in "(\(bind: .string(kind.rawValue)), \(bind: .string(key)), \(bind: .int64(nowMs)))" }
            try await connection.execute("INSERT INTO \(table) (\"kind\", \"key\", \"at_ms\") VALUES \(SQL.joined(values))")
        }
        if takePruneTurn() {
            try await system.database.transaction { connection in
                try await connection.execute("""
                    DELETE FROM \(table) WHERE ctid = ANY (ARRAY(SELECT ctid FROM \(table) WHERE "at_ms" <= \(bind: .int64(since)) \
                    LIMIT \(bind: .int64(Self.pruneBatch))))
                    """)
            }
        }
    }

    func recordSuccess(account: String, address: String) async throws {
        let table = system.table("auth_failures")
        try await system.database.transaction { connection in
            try await connection.execute("""
                DELETE FROM \(table) WHERE "kind" = \(bind: .string(Kind.pair.rawValue)) AND "key" = \(bind: .string(Self.key(account, address)))
                """)
        }
    }

    /// Whether this server should prune now: the first time, then once per ``pruneInterval``.
    private func takePruneTurn() -> Bool {
        let now = ContinuousClock.now
        return lastPrune.withLock { last in
            if let previous = last, now - previous < Self.pruneInterval { return false }
            last = now
            return true
        }
    }
}
