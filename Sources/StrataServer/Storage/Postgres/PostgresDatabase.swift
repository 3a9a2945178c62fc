import Logging
import PostgresNIO
import StrataCore

/// A PostgreSQL database reached through postgres-nio's connection pool.
///
/// The pool runs as a service (`PostgresClient.run()`) in the server's service group; this type
/// only lends its connections. Sessions use UTC so that `timestamp` and `timestamptz` agree.
final class PostgresDatabase: Database {
    let dialect = SQLDialect.postgres
    let client: PostgresClient
    private let counter: StatementCounter
    private let logger: Logger

    /// How long a request waits for a connection before the database counts as unreachable. The pool
    /// itself would keep retrying for a minute before giving up on a server that is down.
    let leaseTimeout: Duration
    private let leaseWatch: LeaseWatch

    init(client: PostgresClient, counter: StatementCounter = .none, logger: Logger, leaseTimeout: Duration = .seconds(10),
         leaseWatch: LeaseWatch = LeaseWatch()) {
        self.client = client
        self.leaseWatch = leaseWatch
        self.counter = counter
        self.logger = logger
        self.leaseTimeout = leaseTimeout
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await leased { connection in
            try await body(PostgresSession(connection: connection, counter: self.counter, logger: self.logger))
        }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await leased { connection in
            let logger = self.logger
            let session = PostgresSession(connection: connection, counter: self.counter, logger: logger)
            try await session.execute(SQLStatement("BEGIN"))
            do {
                let result = try await body(session)
                try await session.execute(SQLStatement("COMMIT"))
                return result
            } catch {
                do {
                    try await session.execute(SQLStatement("ROLLBACK"))
                } catch {
                    logger.error("PostgreSQL rollback failed", metadata: ["error": "\(String(reflecting: error))"])
                }
                throw error
            }
        }
    }

    /// Runs `work` on a pooled connection. Failing to get one within ``leaseTimeout`` (or the pool
    /// failing to connect at all) means the database is unreachable: a 503 for the client.
    ///
    /// The lease runs in a task of its own so that the ``LeaseWatch`` can cancel it without
    /// cancelling the request, which still has its 503 to write.
    private func leased<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = self.client
        let ticket = leaseWatch.ticket(timeout: leaseTimeout)
        let lease = Task {
            ticket.start()
            return try await client.withConnection { connection in
                guard ticket.acquire() else { throw CancellationError() }
                return try await work(connection)
            }
        }
        ticket.onExpiry { lease.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await lease.value
            } onCancel: {
                lease.cancel()
            }
        } catch let error as StorageError {
            ticket.end()
            throw error
        } catch {
            ticket.end()
            if ticket.isExpired {
                throw StorageError.unavailable("no PostgreSQL connection within \(leaseTimeout)")
            }
            if !ticket.isAcquired {
                throw StorageError.unavailable("cannot connect to PostgreSQL: \(String(describing: error))")
            }
            throw PostgresErrorMapping.map(error)
        }
    }

    func ping() async throws {
        _ = try await read { try await $0.query(SQLStatement("SELECT 1")) }
    }

    func close() async {
        // The pool closes when its service (`PostgresClient.run()`) is shut down.
    }
}

/// One leased PostgreSQL connection.
struct PostgresSession: DatabaseConnection {
    let connection: PostgresConnection
    let counter: StatementCounter
    let logger: Logger
    var dialect: SQLDialect { .postgres }

    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        counter.increment()
        do {
            let binds = try PostgresValueCoding.bind(statement.binds)
            if let name = statement.reusableName, !NamedStatements.isAbandoned(name) {
                do {
                    return try await NamedStatements.run(name: name, sql: statement.sql, binds: binds, on: connection, logger: logger) {
                        try await Self.collect($0, types: types)
                    }
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
            throw PostgresErrorMapping.map(error)
        }
    }

    private func unnamed(_ sql: String, _ binds: PostgresBindings, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        try await Self.collect(try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger), types: types)
    }

    private static func collect<Rows: AsyncSequence>(_ sequence: Rows, types: [EDMPrimitiveType?]) async throws -> SQLRows
    where Rows.Element == PostgresRow {
        var columns: [String] = []
        var rows: [[ODataValue]] = []
        for try await row in sequence {
            if columns.isEmpty { columns = row.map(\.columnName) }
            var values: [ODataValue] = []
            values.reserveCapacity(columns.count)
            for (index, cell) in row.enumerated() {
                values.append(try PostgresValueCoding.decode(cell, as: index < types.count ? types[index] : nil))
            }
            rows.append(values)
        }
        return SQLRows(columns: columns, rows: rows)
    }

    func execute(_ statement: SQLStatement) async throws {
        counter.increment()
        do {
            try await connection.query(
                PostgresQuery(unsafeSQL: statement.sql, binds: try PostgresValueCoding.bind(statement.binds)), logger: logger)
        } catch {
            throw PostgresErrorMapping.map(error)
        }
    }
}

/// Turns PostgreSQL errors into storage errors that mean something to clients.
enum PostgresErrorMapping {
    static func map(_ error: any Error) -> any Error {
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
            case "22001", "22003", "22007", "22008", "22P02", "22012":
                return StorageError.invalidValue(message)
            case "428C9":
                // A value for a GENERATED ALWAYS column: the client's mistake, not the server's.
                return StorageError.invalidValue(message)
            case "57014": return StorageError.cancelled
            case "57P01", "57P02", "57P03", "53300": return StorageError.unavailable(message)
            default: return StorageError.failed("PostgreSQL \(state): \(message)")
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
