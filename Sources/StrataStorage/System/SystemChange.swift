import StrataCore
import StrataSQL

/// What a write to the system database changed, as far as other servers on the same database care:
/// each kind names what a server must read again.
///
/// Writes announce their change inside their own transaction (``SystemDatabase/announce(_:on:)``).
/// On PostgreSQL that is a `NOTIFY` on the system schema's channel, which PostgreSQL delivers to every
/// listening server when — and only if — the transaction commits; on SQLite, where one server owns
/// the file, it is nothing (the writer's own caches are cleared by the writer).
package enum SystemChange: String, Sendable, CaseIterable {
    /// Accounts, roles, grants, anonymous access, trusted issuers and their rules, sign-ins and
    /// sign-outs: the authentication caches are forgotten.
    case auth
    /// Service settings, model files, or a reload asked for: the services are loaded again.
    case services
    /// Token signing keys: the key ring is read again.
    case keys
}

extension SystemDatabase {
    /// The `LISTEN`/`NOTIFY` channel of this system database: one per system schema, so that two
    /// Strata installations sharing a PostgreSQL database do not wake each other. Letters, digits and
    /// `_` only (PostgresNIO quotes it as an identifier), well under PostgreSQL's 63 bytes.
    package var changeChannel: String {
        "strata_changes_" + String(UInt64(bitPattern: Self.migrationLock(schema ?? "")), radix: 16)
    }

    /// Tells every server on this database, once the caller's transaction commits, that `change`
    /// happened. Nothing on SQLite.
    package func announce(_ change: SystemChange, on connection: any DatabaseConnection) async throws {
        guard schema != nil, dialect == .postgres else { return }
        try await connection.execute("SELECT pg_notify(\(bind: .string(changeChannel)), \(bind: .string(change.rawValue)))")
    }
}
