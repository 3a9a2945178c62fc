import Logging
import PostgresNIO
import StrataCore
import StrataSQL
import Synchronization

/// A PostgreSQL database reached through postgres-nio's connection pool.
///
/// The pool runs as a service (`PostgresClient.run()`) in the server's service group; this type
/// only lends its connections. Sessions use UTC so that `timestamp` and `timestamptz` agree.
final class PostgresDatabase: Database {
    let dialect = SQLDialect.postgres
    private let counter: StatementCounter
    let logger: Logger

    /// How long a request waits for a connection before the database counts as unreachable. The pool
    /// itself would keep retrying for a minute before giving up on a server that is down.
    let leaseTimeout: Duration
    private let leaseWatch: LeaseWatch
    /// Each connection's backend and statement timeout; shared by the views of one pool.
    let sessions: PostgresSessions
    /// How many scans may hold pooled connections at once (see ``Database/read(scanning:_:)``).
    private let scans: LeaseLimit

    /// How long leases wait for a connection (`/metrics`).
    private let poolWaits: PoolWaitRecorder

    /// Whether this is the primary or a standby: which log position its reads report.
    let role: Role
    /// The standbys reads may go to (`--read-replica`); nil on a standby and without replicas.
    let standbys: StandbySet?

    enum Role: Sendable {
        case primary, standby

        /// Runs, after a lease's statements, the statement that answers a log position at or past
        /// what they saw or wrote (``PrimaryPositionStatement``, ``StandbyPositionStatement``).
        func position(on connection: PostgresConnection, logger: Logger) async throws -> String? {
            // Every row is read (there is one), so that nothing is left unread on the connection.
            var position: String?
            switch self {
            case .primary:
                for try await text in try await connection.execute(PrimaryPositionStatement(), logger: logger) { position = text }
            case .standby:
                for try await text in try await connection.execute(StandbyPositionStatement(), logger: logger) { position = text }
            }
            return position
        }
    }

    /// How a read runs: on pooled connections for key lookups or those kept for scans, or in a
    /// read-only snapshot (``Database/snapshot(_:)``).
    enum ReadKind: Sendable {
        case read(scanning: Bool)
        case snapshot
    }

    init(sessions: PostgresSessions, counter: StatementCounter = .none, logger: Logger,
         leaseTimeout: Duration = .seconds(10), scanLimit: Int = 8, leaseWatch: LeaseWatch = LeaseWatch(),
         poolWaits: PoolWaitRecorder = .none, role: Role = .primary, standbys: StandbySet? = nil) {
        self.sessions = sessions
        self.role = role
        self.standbys = standbys
        self.poolWaits = poolWaits
        self.scans = LeaseLimit(scanLimit)
        self.leaseWatch = leaseWatch
        if let availability = sessions.availability {
            // A lease that waits a second while the database is down would otherwise wait its full timeout.
            leaseWatch.suspect(after: .seconds(1)) { await availability.check() }
        }
        self.counter = counter
        self.logger = logger
        self.leaseTimeout = leaseTimeout
    }

    func read<T: Sendable>(scanning: Bool, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        if let held = HeldSnapshot.current, held.owner == ObjectIdentifier(self) { return try await held.run(body) }
        if standbys != nil, let scope = ReadPositionScope.current {
            return try await routed(.read(scanning: scanning), scope, body)
        }
        return try await plainRead(scanning: scanning, body)
    }

    func plainRead<T: Sendable>(scanning: Bool, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        if scanning {
            return try await scans.with { try await leased(body) }
        }
        return try await leased(body)
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        guard standbys != nil, let scope = ReadPositionScope.current else { return try await transaction(begin: "BEGIN", body) }
        // The caller's next reads must see this write: its position is read after the commit.
        let (result, position) = try await transaction(begin: "BEGIN", body, reporting: true)
        if let position { scope.record(position) }
        return result
    }

    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        // A held snapshot is one already: its statements see what it sees.
        if let held = HeldSnapshot.current, held.owner == ObjectIdentifier(self) { return try await held.run(body) }
        if standbys != nil, let scope = ReadPositionScope.current {
            return try await routed(.snapshot, scope, body)
        }
        return try await transaction(begin: Self.snapshotBegin, body)
    }

    static let snapshotBegin: SQL = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// A read of a request (``ReadPositionScope``): on a standby that has replayed what the caller
    /// has seen when the request may read standbys, else on the primary; either way the position it
    /// saw is recorded for the response.
    private func routed<T: Sendable>(_ kind: ReadKind, _ scope: ReadPositionScope,
                                     _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        if scope.mayReadStandbys, let standbys, let (result, position) = try await standbys.read(kind: kind, after: scope.position, body) {
            scope.record(position)
            return result
        }
        let (result, position) = try await reporting(kind, body)
        scope.record(position)
        return result
    }

    /// Runs a read and then, on the same connection, the statement that answers the position it saw.
    func reporting<T: Sendable>(_ kind: ReadKind, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T)
        async throws -> (T, ReadPosition) {
        let report: @Sendable (PostgresSession) async throws -> ReadPosition = { [role] session in try await session.position(role) }
        switch kind {
        case .read(let scanning):
            return try await plainRead(scanning: scanning) { connection in
                let result = try await body(connection)
                // Always a PostgresSession: this database lends no other kind of connection.
                guard let session = connection as? PostgresSession else { throw StorageError.failed("not a PostgreSQL connection") }
                return (result, try await report(session))
            }
        case .snapshot:
            let (result, position) = try await transaction(begin: Self.snapshotBegin, body, reporting: true)
            guard let position else { throw StorageError.unavailable("PostgreSQL answered no log position") }
            return (result, position)
        }
    }

    private func transaction<T: Sendable>(begin: SQL, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await transaction(begin: begin, body, reporting: false).0
    }

    /// A transaction; with `reporting`, the position read on its connection after the commit.
    private func transaction<T: Sendable>(begin: SQL, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T,
                                          reporting: Bool) async throws -> (T, ReadPosition?) {
        try await leased { session in
            let logger = self.logger
            try await session.execute(SQLStatement(begin, dialect: self.dialect).oneRow())
            let result: T
            do {
                result = try await body(session)
                try await session.execute(SQLStatement("COMMIT", dialect: self.dialect).oneRow())
            } catch {
                do {
                    try await session.execute(SQLStatement("ROLLBACK", dialect: self.dialect).oneRow())
                } catch {
                    logger.error("PostgreSQL rollback failed", metadata: ["error": "\(String(reflecting: error))"])
                }
                throw error
            }
            guard reporting else { return (result, nil) }
            do {
                return (result, try await session.position(self.role))
            } catch {
                // Committed: the write is not reported as failed (a client would send it again). Its
                // caller's next read may then miss it on a standby; only when the connection dies
                // between the commit and this one statement.
                logger.warning("Committed, but PostgreSQL's log position could not be read after the commit",
                               metadata: ["error": "\(String(reflecting: error))"])
                return (result, nil)
            }
        }
    }

    /// Runs `work` on a pooled connection. Failing to get one within ``leaseTimeout`` (or the pool
    /// failing to connect at all) means the database is unreachable: a 503 for the client.
    ///
    /// The lease runs in a task of its own so that the ``LeaseWatch`` can cancel it without
    /// cancelling the request, which still has its 503 to write.
    private func leased<T: Sendable>(_ work: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try sessions.availability?.requireUp()
        let (client, generation) = sessions.pool.current
        let ticket = leaseWatch.ticket(timeout: leaseTimeout)
        let limits = StatementLimits.current
        let (sessions, counter, logger, poolWaits) = (self.sessions, self.counter, self.logger, self.poolWaits)
        let asked = ContinuousClock.now
        let outcome = LeaseOutcome<T>()
        let lease = Task {
            ticket.start()
            do {
                outcome.finish(.success(try await Self.lease(client, generation: generation, ticket: ticket, asked: asked, limits: limits,
                                                             sessions: sessions, counter: counter, logger: logger, poolWaits: poolWaits, work)))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        let abandonment = sessions.pool.leases.register(generation: generation) {
            outcome.finish(.failure(StorageError.unavailable("the connection's PostgreSQL server went away")))
            lease.cancel()
        }
        defer { sessions.pool.leases.remove(abandonment) }
        ticket.onExpiry { lease.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await outcome.value
            } onCancel: {
                lease.cancel()
            }
        } catch let error as StorageError {
            ticket.end()
            // A connection lost, or a host that became a standby: the control connection finds out
            // whether the database (or, with several hosts, its primary) is away, and a failover's
            // new primary is then looked for.
            if case .unavailable = error { await sessions.availability?.check() }
            throw error
        } catch {
            ticket.end()
            if ticket.isExpired || !ticket.isAcquired {
                // Busy, or down? Asking the control connection tells, and an outage makes the next
                // requests fail at once instead of waiting as this one did.
                await sessions.availability?.check()
            }
            if ticket.isExpired {
                if sessions.availability?.isDown == true { throw StorageError.unavailable("PostgreSQL does not answer") }
                throw StorageError.unavailable("no PostgreSQL connection within \(leaseTimeout)")
            }
            if !ticket.isAcquired {
                throw StorageError.unavailable("cannot connect to PostgreSQL: \(String(describing: error))")
            }
            throw PostgresErrorMapping.map(error)
        }
    }

    /// Leases a connection from `client` and runs `work` on it.
    private static func lease<T: Sendable>(_ client: PostgresClient, generation: Int, ticket: LeaseTicket, asked: ContinuousClock.Instant,
                                           limits: StatementLimits, sessions: PostgresSessions, counter: StatementCounter, logger: Logger,
                                           poolWaits: PoolWaitRecorder,
                                           _ work: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            guard ticket.acquire() else { throw CancellationError() }
            poolWaits.record(ContinuousClock.now - asked)
            let processID = try await sessions.prepare(connection, pool: generation, timeout: limits.timeout)
            let session = PostgresSession(connection: connection, processID: processID, sessions: sessions, limits: limits,
                                          counter: counter, logger: logger)
            do {
                let result = try await work(session)
                await session.stops.settled()
                return result
            } catch {
                // The connection goes back to the pool only once a cancel it asked for was delivered.
                await session.stops.settled()
                throw error
            }
        }
    }

    /// `SELECT 1` on the control connection, so that a health check never waits for a busy pool,
    /// answers within seconds when the server is down and at once while it is known to be down;
    /// through the pool where there is no control connection.
    func ping() async throws {
        if let availability = sessions.availability {
            try availability.requireUp()
            if await availability.check() { throw StorageError.unavailable("PostgreSQL does not answer") }
            return
        }
        _ = try await read { try await $0.query("SELECT 1") }
    }

    func close() async {
        // The pool closes when its service (`PostgresClient.run()`) is shut down.
    }
}

/// One leased PostgreSQL connection.
struct PostgresSession: DatabaseConnection {
    let connection: PostgresConnection
    /// The backend process serving the connection, for cancel requests.
    let processID: Int32
    let sessions: PostgresSessions
    let limits: StatementLimits
    let counter: StatementCounter
    let logger: Logger
    /// Cancels asked for during this lease.
    let stops = PostgresStops()
    var dialect: SQLDialect { .postgres }

    /// The log position the statements of this lease saw or wrote (``PostgresDatabase/Role/positionQuery``);
    /// not counted as a service statement. A failure is an outage for the caller (503): the server
    /// cannot tell what the request's answer reflects.
    func position(_ role: PostgresDatabase.Role) async throws -> ReadPosition {
        do {
            if let text = try await role.position(on: connection, logger: logger), let position = ReadPosition(text) { return position }
        } catch {
            if case StorageError.cancelled = PostgresErrorMapping.map(error) { throw StorageError.cancelled }
            throw StorageError.unavailable("cannot read PostgreSQL's log position: \(String(describing: PostgresErrorMapping.map(error)))")
        }
        throw StorageError.unavailable("PostgreSQL answered no log position")
    }

    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        counter.increment()
        if statement.touchesOneRow { return try await runQuery(statement, types: types) }
        return try await stoppable { try await runQuery(statement, types: types) }
    }

    func execute(_ statement: SQLStatement) async throws {
        counter.increment()
        if statement.touchesOneRow { return try await runExecute(statement) }
        try await stoppable { try await runExecute(statement) }
    }

    /// Runs a statement that may take long so that a stop signal cancels it in PostgreSQL, and
    /// turns the cancellation into the error that says why.
    private func stoppable<T>(_ run: () async throws -> T) async throws -> T {
        let (stops, sessions, processID) = (self.stops, self.sessions, self.processID)
        stops.begin()
        do {
            // PostgreSQL keeps the deadline itself (`statement_timeout`); the watch sends the cancels.
            let result = try await StatementWatch.shared.run(limits, timesOut: false, stop: { cause in
                guard case .signal(let reason) = cause else { return }
                let connection = self.connection
                stops.stop(reason, cancel: { await sessions.cancel(processID) }, close: { try? await connection.close() })
            }) {
                // Stopped before it was sent (the client hung up while it waited): not sent at all.
                if stops.reason != nil { throw StorageError.cancelled }
                return try await run()
            }
            await stops.end()
            return result
        } catch {
            await stops.end()
            guard stops.reason != nil else { throw error }
            throw stops.reason == .shutdown ? StorageError.shuttingDown : StorageError.cancelled
        }
    }

    private func runQuery(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        do {
            let binds = try PostgresValueCoding.bind(statement.binds)
            if let name = statement.reusableName, !NamedStatements.isAbandoned(name) {
                do {
                    return try await NamedStatements.run(name: name, sql: statement.sql, binds: binds, on: connection, logger: logger) {
                        try await Self.collect($0, types: types, maxBytes: limits.maxResultBytes)
                    }
                } catch let error as StorageError {
                    throw error
                } catch let namedError {
                    // See ``NamedStatements``: the failure may be one postgres-nio remembered from an
                    // earlier preparation on this connection. If the same statement succeeds unnamed,
                    // that is what it was.
                    guard let rows = try? await unnamed(statement.sql, binds, types: types) else { throw namedError }
                    NamedStatements.abandon(name, logger: logger)
                    return rows
                }
            }
            return try await unnamed(statement.sql, binds, types: types)
        } catch {
            throw PostgresErrorMapping.map(error, timeout: limits.timeout)
        }
    }

    private func unnamed(_ sql: String, _ binds: PostgresBindings, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        try await Self.collect(try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger), types: types,
                               maxBytes: limits.maxResultBytes)
    }

    /// The rows of a result; stops past `maxBytes` of values (``StatementLimits/maxResultBytes``),
    /// which leaves the rest of the result unread on the connection, as a cancelled query does.
    private static func collect<Rows: AsyncSequence>(_ sequence: Rows, types: [EDMPrimitiveType?], maxBytes: Int?) async throws -> SQLRows
    where Rows.Element == PostgresRow {
        var columns: [String] = []
        var rows: [[ODataValue]] = []
        var bytes = 0
        for try await row in sequence {
            if columns.isEmpty { columns = row.map(\.columnName) }
            var values: [ODataValue] = []
            values.reserveCapacity(columns.count)
            for (index, cell) in row.enumerated() {
                values.append(try PostgresValueCoding.decode(cell, as: index < types.count ? types[index] : nil))
            }
            if let maxBytes {
                bytes += SQLRows.bytes(of: values)
                guard bytes <= maxBytes else { throw StorageError.resultTooLarge(maxBytes) }
            }
            rows.append(values)
        }
        return SQLRows(columns: columns, rows: rows)
    }

    private func runExecute(_ statement: SQLStatement) async throws {
        do {
            try await connection.query(
                PostgresQuery(unsafeSQL: statement.sql, binds: try PostgresValueCoding.bind(statement.binds)), logger: logger)
        } catch {
            throw PostgresErrorMapping.map(error, timeout: limits.timeout)
        }
    }
}

/// Turns PostgreSQL errors into storage errors that mean something to clients.
enum PostgresErrorMapping {
    /// A table, column, schema or function the statement names does not exist. The statements come
    /// from catalogs read on the primary, so on the primary this is a failure (500); on a standby it
    /// means the standby has not yet replayed the DDL, and the read goes to the primary.
    static let missingObjectStates: Set<String> = ["42P01", "42703", "3F000", "42883"]

    /// The text of ``StorageError/failed(_:)`` for an unmapped PostgreSQL error; its state leads.
    static func failure(_ state: String, _ message: String) -> String {
        "PostgreSQL \(state): \(message)"
    }

    /// Whether the error is one of ``missingObjectStates``.
    static func isMissingObject(_ error: StorageError) -> Bool {
        guard case .failed(let text) = error else { return false }
        return missingObjectStates.contains { text.hasPrefix(failure($0, "")) }
    }

    /// `timeout` is the statement timeout the statement ran under, named when PostgreSQL stopped it for that.
    static func map(_ error: any Error, timeout: Duration? = nil) -> any Error {
        guard let error = error as? PSQLError else { return error }
        switch error.code {
        case .server:
            let info = error.serverInfo
            let state = info?[.sqlState] ?? ""
            let message = info?[.message] ?? "PostgreSQL error"
            let detail = [message, info?[.detail]].compactMap { $0 }.joined(separator: ". ")
            let constraint = info?[.constraintName]
            let table = info?[.tableName]
            switch state {
            case "23505": return StorageError.uniqueViolation(constraint: constraint, table: table, detail: detail)
            case "23503": return StorageError.foreignKeyViolation(constraint: constraint, table: table, detail: detail)
            case "23502", "23514", "23P01": return StorageError.constraintViolation(constraint: constraint, table: table, detail: detail)
            case "22003" where message.hasPrefix("bigint out of range") || message.hasPrefix("integer out of range")
                || message.hasPrefix("smallint out of range"):
                return StorageError.integerOverflow
            case "22001", "22003", "22007", "22008", "22P02", "22012":
                return StorageError.invalidValue(message)
            case "428C9":
                // A value for a GENERATED ALWAYS column: the client's mistake, not the server's.
                return StorageError.invalidValue(message)
            case "42501":
                // insufficient_privilege: the role Strata connects as may not do this (a read-only role).
                return StorageError.permissionDenied(message)
            case "57014":
                // PostgreSQL says "canceling statement due to statement timeout" or "… due to user request".
                if let timeout, message.contains("statement timeout") { return StorageError.timedOut(timeout) }
                return StorageError.cancelled
            case "57P01", "57P02", "57P03", "53300": return StorageError.unavailable(message)
            case "25006":
                // read_only_sql_transaction: the host is a standby now (a failover moved the primary).
                return StorageError.unavailable(message)
            case "40001" where message.contains("conflict with recovery"):
                // A standby cancelled the query for the log it replays: the read goes to the primary.
                return StorageError.unavailable(message)
            default: return StorageError.failed(failure(state, message))
            }
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
            return StorageError.unavailable(String(describing: error.code))
        case .queryCancelled:
            return StorageError.cancelled
        default:
            return StorageError.failed("PostgreSQL: \(String(describing: error.code))")
        }
    }
}

/// The cancels one lease asked for: why, and the request in flight, which the lease waits for
/// before its connection goes back to the pool (see ``PostgresSessions``).
///
/// A cancel reaches the backend, not a statement: one sent before the statement arrived is
/// ignored. So while a statement runs, its cancel is repeated every ``repeatInterval`` until the
/// statement has ended, and ``end()`` waits for the last one to be delivered, so that none lands
/// on the lease's next statement.
final class PostgresStops: Sendable {
    private struct State {
        var reason: InterruptSignal.Reason?
        var pending: Task<Void, Never>?
        var running = false
    }

    private let state = Mutex(State())
    static let repeatInterval: Duration = .milliseconds(100)

    var reason: InterruptSignal.Reason? { state.withLock { $0.reason } }

    /// A statement that may be stopped starts.
    func begin() {
        state.withLock { $0.running = true }
    }

    /// The statement ended; waits for a cancel under way.
    func end() async {
        let pending = state.withLock { state in
            state.running = false
            return state.pending
        }
        await pending?.value
    }

    /// How long cancels are repeated before the connection is closed instead.
    static let closeAfter: Duration = .seconds(2)

    /// Records the first reason and cancels while a statement runs. A statement still running
    /// ``closeAfter`` later is ended by closing its connection (postgres-nio then fails it): its
    /// server does not take cancels — gone silent, or gone in a failover — and the lease must not
    /// wait for it forever. Each cancel is waited for at most ``repeatInterval`` times five, so a
    /// control connection that hangs cannot hold the loop.
    func stop(_ reason: InterruptSignal.Reason, cancel: @escaping @Sendable () async -> Void,
              close: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard state.pending == nil else { return }
            state.reason = reason
            state.pending = Task { [self] in
                let started = ContinuousClock.now
                while self.state.withLock({ $0.running }) {
                    if ContinuousClock.now - started >= Self.closeAfter {
                        await close()
                        return
                    }
                    await Bounded.wait(at: Self.repeatInterval * 5, cancel)
                    try? await Task.sleep(for: Self.repeatInterval)
                }
            }
        }
    }

    func settled() async {
        await state.withLock { $0.pending }?.value
    }
}
