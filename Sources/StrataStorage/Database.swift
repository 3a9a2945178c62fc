import StrataCore
import StrataSQL

/// One database holding one or more services' tables.
///
/// Reads run on pooled connections; writes run one at a time in a transaction, which on SQLite
/// means no client ever sees `SQLITE_BUSY` and on PostgreSQL maps to `BEGIN … COMMIT`.
package protocol Database: Sendable {
    var dialect: SQLDialect { get }

    /// Runs `body` with a connection for reading. Statements see committed data. A `scanning` read
    /// may read any number of rows: it runs on the connections kept for scans, so that key lookups,
    /// writes and health checks always find one (see ``scan(_:)``).
    func read<T: Sendable>(scanning: Bool, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T

    /// Runs `body` inside a transaction that commits when it returns and rolls back when it throws.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T

    /// Runs `body` in a read-only transaction with one snapshot for all its statements (SQLite:
    /// `BEGIN` (deferred) … `COMMIT` on a reader connection, the snapshot taken at its first read;
    /// PostgreSQL: `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`). A change log window and
    /// the rows it names are read in one (docs/design/CHANGE-FEED.md §2).
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T

    /// Checks that the database answers (for `/health`).
    func ping() async throws

    /// A snapshot for the reads a streamed response makes after its head went out, held on one
    /// connection until the response ends (``HeldSnapshot``); its position is recorded in the
    /// request's ``ReadPositionScope``. Nil where none is needed: reads that are not a request's on a
    /// server with standbys, and every database but PostgreSQL with standbys (one primary always
    /// answers with its newest data, so no later read can be older than an earlier one).
    func holdSnapshot() async throws -> HeldSnapshot?

    /// The primary's log position now, at or past every commit acknowledged so far: the position
    /// background work waits for before it reads on a standby. Nil where reads never go to standbys.
    func currentPosition() async throws -> ReadPosition?

    /// Waits at most `limit` for a standby to have replayed `position` (as its polls say); answers
    /// whether one has. False at once where reads never go to standbys.
    func awaitStandby(after position: ReadPosition, within limit: Duration) async -> Bool

    /// Closes every connection; later calls fail.
    func close() async
}

/// A connection lent by a ``Database`` for the duration of a closure.
package protocol DatabaseConnection: Sendable {
    var dialect: SQLDialect { get }

    /// Runs a query and decodes each column as the given type (nil: the database's natural type).
    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows

    /// Runs a statement whose rows are not needed (DDL, or DML without `RETURNING`).
    func execute(_ statement: SQLStatement) async throws
}

package extension Database {
    func holdSnapshot() async throws -> HeldSnapshot? { nil }
    func currentPosition() async throws -> ReadPosition? { nil }
    func awaitStandby(after position: ReadPosition, within limit: Duration) async -> Bool { false }

    /// ``read(_:)`` for work that may read any number of rows (a collection, `$sql`, `$count`, an
    /// expansion): it runs on the connections kept for scans (``Database/read(scanning:_:)``).
    /// Each caller's scans are counted (``ScanAdmission``), so that none can hold every connection.
    func scan<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        let limits = StatementLimits.current
        // A held snapshot took the caller's scan already; it runs its reads one at a time.
        if HeldSnapshot.current != nil { return try await read(scanning: true, body) }
        guard let admission = limits.admission, let caller = limits.caller else { return try await read(scanning: true, body) }
        return try await admission.run(for: caller()) { try await read(scanning: true, body) }
    }

    /// A read of a few rows, by key (``read(scanning:_:)``).
    func read<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await read(scanning: false, body)
    }
}

package extension DatabaseConnection {
    func query(_ statement: SQLStatement) async throws -> SQLRows {
        try await query(statement, types: [])
    }

    /// Runs compiler-checked SQL (``SQL``), rendered for this connection's database.
    func query(_ sql: SQL, types: [EDMPrimitiveType?] = []) async throws -> SQLRows {
        try await query(SQLStatement(sql, dialect: dialect), types: types)
    }

    /// Runs compiler-checked SQL whose rows are not needed.
    func execute(_ sql: SQL) async throws {
        try await execute(SQLStatement(sql, dialect: dialect))
    }
}

/// Counts SQL statements for `/metrics` (`strata_sql_statements_total`); tests and benchmarks use it
/// to prove that `$expand` does not run one query per parent row. Only statements against services
/// count; the system database's (accounts, grants, sessions) do not.
package struct StatementCounter: Sendable {
    var increment: @Sendable () -> Void

    static let none = StatementCounter(increment: {})

    /// Set while Strata's own upkeep runs against a service's database (pruning the change log and
    /// change-set receipts): those statements are not the service's SQL, and they run at moments of
    /// their own, so counting them would make the metric move under a request that ran none.
    @TaskLocal package static var isUpkeep = false

    /// A counter that leaves out upkeep.
    package static func counting(_ count: @escaping @Sendable () -> Void) -> StatementCounter {
        StatementCounter { if !isUpkeep { count() } }
    }
}
