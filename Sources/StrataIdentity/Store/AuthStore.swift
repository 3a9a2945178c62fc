import Foundation
import StrataCore
import StrataSQL
import StrataStorage

/// Reads and writes the account tables of the system database (see `SystemDatabase+Accounts.swift`).
///
/// Two things are answered from memory: anonymous access and table grants (``accessSettings``),
/// and the callers of recently verified access tokens (``signIns``). Every write through the store
/// (``write(_:)``) forgets both, so changes made over `/admin` or by signing out apply to the next
/// request on this server, and announces them (``SystemChange/auth``) in its transaction: on
/// PostgreSQL every other server's listener forgets its copies when the write commits, so the change
/// applies there at the next request too. Changes whose announcement does not reach a server (its
/// listener is reconnecting; SQLite, where another process such as `strata grant` writes the file)
/// apply within the fallback age of ``freshness``. Everything else is read when asked. Every value is
/// a bound parameter.
package struct AuthStore: Sendable {
    package let system: SystemDatabase
    /// Shared by every copy of the store, so that a write through any of them is seen by all.
    let accessSettings: AccessSettingsCache
    let signIns: SignInCache
    /// How long both caches may be answered from; the server's change listener says whether
    /// changes are being pushed.
    package let freshness: CacheFreshness

    /// `cacheMaxAge` bounds how long changes made by another process take to apply.
    package init(system: SystemDatabase, cacheMaxAge: Duration = .seconds(1)) {
        self.init(system: system, freshness: CacheFreshness(fallback: cacheMaxAge))
    }

    init(system: SystemDatabase, freshness: CacheFreshness) {
        self.system = system
        self.freshness = freshness
        self.accessSettings = AccessSettingsCache(freshness: freshness) {
            try await Self.readAccessSettings(system)
        }
        self.signIns = SignInCache(freshness: freshness)
    }

    /// Runs `body` in a transaction on the system database that also announces the change to the
    /// other servers (``SystemChange/auth``, delivered at commit), then forgets what this server
    /// holds in memory. Also after a failure, whose outcome (a commit whose answer was lost) is not
    /// known for sure.
    package func write<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        defer {
            accessSettings.invalidate()
            signIns.invalidate()
        }
        let system = self.system
        return try await database.transaction { connection in
            let result = try await body(connection)
            try await system.announce(.auth, on: connection)
            return result
        }
    }

    /// Forgets what the server holds in memory, for a change announced by another server.
    package func forgetCached() {
        accessSettings.invalidate()
        signIns.invalidate()
    }

    package var database: any Database { system.database }
    package var dialect: SQLDialect { system.dialect }

    package func q(_ table: String) -> TableName { system.table(table) }

    /// `*` in key columns stands for "every service" or "every table".
    package static let every = "*"

    package static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    // MARK: Accounts

    struct StoredAccount: Sendable {
        var username: String
        var passwordHash: String
        var createdAt: Int64
    }

    /// An account with its roles, in one statement (every authenticated request needs both).
    func accountWithRoles(_ username: String) async throws -> (account: StoredAccount, roles: [RoleAssignment])? {
        let rows = try await database.read { connection in
            try await connection.query("""
                SELECT a."username", a."password_hash", a."created_at", r."role", r."service"
                FROM \(q("accounts")) a LEFT JOIN \(q("account_roles")) r ON r."username" = a."username"
                WHERE a."username" = \(bind: .string(username)) ORDER BY r."role", r."service"
                """, types: [.string, .string, .int64, .string, .string])
        }
        guard let first = rows.rows.first, let name = first[0].stringValue, let hash = first[1].stringValue else { return nil }
        let account = StoredAccount(username: name, passwordHash: hash, createdAt: first[2].integerValue ?? 0)
        return (account, rows.rows.compactMap { Self.assignment(Array($0[3...])) })
    }

    static func assignment(_ row: [ODataValue]) -> RoleAssignment? {
        guard let role = row[0].stringValue, let service = row[1].stringValue else { return nil }
        return RoleAssignment(role: role, service: service == every ? nil : service)
    }

    /// Creates an account; 409 when the name is taken.
    package func createAccount(_ username: String, passwordHash: String, roles: [RoleAssignment], now: Date) async throws {
        let created = try await write { connection in
            try await insertAccount(username, passwordHash: passwordHash, roles: roles, createdAt: Self.seconds(now), connection)
        }
        guard created else {
            throw ODataError(status: 409, code: "Conflict", message: "An account named '\(username)' exists already.")
        }
    }

    /// Inserts an account with its roles in the caller's transaction, unless the name is taken.
    /// Answers whether it was inserted.
    package func insertAccount(_ username: String, passwordHash: String, roles: [RoleAssignment], createdAt: Int64,
                       _ connection: any DatabaseConnection) async throws -> Bool {
        let accounts = q("accounts"), accountRoles = q("account_roles")
        let existing = try await connection.query("SELECT 1 FROM \(accounts) WHERE \"username\" = \(bind: .string(username))")
        guard existing.rows.isEmpty else { return false }
        try await connection.execute("INSERT INTO \(accounts) (\"username\", \"password_hash\", \"created_at\") VALUES (\(bind: .string(username)), \(bind: .string(passwordHash)), \(bind: .int64(createdAt)))")
        for assignment in Set(roles) {
            try await connection.execute("INSERT INTO \(accountRoles) (\"username\", \"role\", \"service\") VALUES (\(bind: .string(username)), \(bind: .string(assignment.role)), \(bind: .string(assignment.service ?? Self.every)))")
        }
        return true
    }

    /// Replaces the password hash and ends every session of the account (its tokens stop working).
    package func setPassword(_ username: String, passwordHash: String, now: Date) async throws {
        let accounts = q("accounts"), sessions = q("auth_sessions")
        let found = try await write { connection -> Bool in
            let rows = try await connection.query("UPDATE \(accounts) SET \"password_hash\" = \(bind: .string(passwordHash)) WHERE \"username\" = \(bind: .string(username)) RETURNING \"username\"")
            guard !rows.rows.isEmpty else { return false }
            try await Self.revokeSessions(of: username, in: sessions, at: now, on: connection)
            return true
        }
        guard found else { throw Self.noAccount(username) }
    }

    /// Revokes the account's own sign-ins (not those exchanged from another issuer) still active.
    private static func revokeSessions(of username: String, in sessions: TableName, at now: Date,
                                       on connection: any DatabaseConnection) async throws {
        try await connection.execute("UPDATE \(sessions) SET \"revoked_at\" = \(bind: .int64(seconds(now))) WHERE \"subject\" = \(bind: .string(username)) AND \"issuer\" IS NULL AND \"revoked_at\" IS NULL")
    }

    /// Ends every sign-in of an account (`POST /admin/users/sign-out`): its tokens and refresh
    /// tokens stop working, as after a new password; the password stays.
    package func endSessions(_ username: String, now: Date) async throws {
        let accounts = q("accounts"), sessions = q("auth_sessions")
        let found = try await write { connection -> Bool in
            let rows = try await connection.query("SELECT \"username\" FROM \(accounts) WHERE \"username\" = \(bind: .string(username))")
            guard !rows.rows.isEmpty else { return false }
            try await Self.revokeSessions(of: username, in: sessions, at: now, on: connection)
            return true
        }
        guard found else { throw Self.noAccount(username) }
    }

    /// Removes an account with its roles and sessions.
    package func removeAccount(_ username: String) async throws {
        let accounts = q("accounts"), sessions = q("auth_sessions")
        let found = try await write { connection -> Bool in
            try await connection.execute("DELETE FROM \(sessions) WHERE \"subject\" = \(bind: .string(username)) AND \"issuer\" IS NULL")
            let rows = try await connection.query("DELETE FROM \(accounts) WHERE \"username\" = \(bind: .string(username)) RETURNING \"username\"")
            return !rows.rows.isEmpty
        }
        guard found else { throw Self.noAccount(username) }
    }

    package func listAccounts() async throws -> [AccountSummary] {
        let (accounts, roles) = try await database.read { connection in
            let accounts = try await connection.query("SELECT \"username\", \"created_at\" FROM \(q("accounts")) ORDER BY \"username\"", types: [.string, .int64])
            let roles = try await connection.query("SELECT \"username\", \"role\", \"service\" FROM \(q("account_roles")) ORDER BY \"role\", \"service\"",
                types: [.string, .string, .string])
            return (accounts, roles)
        }
        var byName: [String: [RoleAssignment]] = [:]
        for row in roles.rows {
            guard let name = row[0].stringValue, let assignment = Self.assignment(Array(row[1...])) else { continue }
            byName[name, default: []].append(assignment)
        }
        return accounts.rows.compactMap { row in
            guard let name = row[0].stringValue else { return nil }
            return AccountSummary(username: name, createdAt: Date(timeIntervalSince1970: Double(row[1].integerValue ?? 0)),
                                  roles: byName[name] ?? [])
        }
    }

    /// Gives an account a role; answers false when it held it already.
    @discardableResult
    package func addRole(_ username: String, _ assignment: RoleAssignment) async throws -> Bool {
        let accounts = q("accounts"), accountRoles = q("account_roles")
        let service = assignment.service ?? Self.every
        let outcome = try await write { connection -> Bool? in
            let account = try await connection.query("SELECT 1 FROM \(accounts) WHERE \"username\" = \(bind: .string(username))")
            guard !account.rows.isEmpty else { return nil }
            let held = try await connection.query("SELECT 1 FROM \(accountRoles) WHERE \"username\" = \(bind: .string(username)) AND \"role\" = \(bind: .string(assignment.role)) AND \"service\" = \(bind: .string(service))")
            guard held.rows.isEmpty else { return false }
            try await connection.execute("INSERT INTO \(accountRoles) (\"username\", \"role\", \"service\") VALUES (\(bind: .string(username)), \(bind: .string(assignment.role)), \(bind: .string(service)))")
            return true
        }
        guard let outcome else { throw Self.noAccount(username) }
        return outcome
    }

    /// Takes a role from an account; answers false when it did not hold it.
    @discardableResult
    package func removeRole(_ username: String, _ assignment: RoleAssignment) async throws -> Bool {
        let rows = try await write { connection in
            try await connection.query("DELETE FROM \(q("account_roles")) WHERE \"username\" = \(bind: .string(username)) AND \"role\" = \(bind: .string(assignment.role)) AND \"service\" = \(bind: .string(assignment.service ?? Self.every)) RETURNING \"role\"")
        }
        return !rows.rows.isEmpty
    }

    static func noAccount(_ username: String) -> ODataError {
        .notFound("There is no account named '\(username)'.")
    }

    // MARK: One-time steps

    package func state(_ name: String) async throws -> String? {
        let rows = try await database.read { connection in
            try await connection.query("SELECT \"value\" FROM \(q("auth_state")) WHERE \"name\" = \(bind: .string(name))", types: [.string])
        }
        return rows.rows.first?[0].stringValue
    }

    package func setState(_ name: String, _ value: String, _ connection: any DatabaseConnection) async throws {
        try await connection.execute("DELETE FROM \(q("auth_state")) WHERE \"name\" = \(bind: .string(name))")
        try await connection.execute("INSERT INTO \(q("auth_state")) (\"name\", \"value\") VALUES (\(bind: .string(name)), \(bind: .string(value)))")
    }
}

/// An account as listings show it; never its password hash.
public struct AccountSummary: Sendable, Hashable {
    public var username: String
    public var createdAt: Date
    public var roles: [RoleAssignment]
}
