import Foundation
import Logging
import SQLiteNIO
import StrataCore

/// A SQLite database file with a pool of reader connections and one writer.
///
/// WAL mode lets readers keep reading while the writer writes. All writes go through the single
/// writer connection, one transaction at a time, so concurrent clients queue inside the server
/// instead of meeting `SQLITE_BUSY`. `synchronous=NORMAL` in WAL mode keeps every acknowledged
/// commit across a crash of the server process (not across power loss before the next checkpoint).
final class SQLiteDatabase: Database {
    let dialect = SQLDialect.sqlite
    let path: String
    private let readers: ConnectionPool<SQLiteConnection>
    private let writer: ConnectionPool<SQLiteConnection>
    private let counter: StatementCounter
    private let logger: Logger

    static func open(path: String, readers: Int = 4, counter: StatementCounter = .none, logger: Logger) async throws -> SQLiteDatabase {
        let writerConnection = try await openConnection(path: path, logger: logger)
        // The writer runs first so that WAL mode is set before readers open the file.
        var readerConnections: [SQLiteConnection] = []
        do {
            for _ in 0..<max(1, readers) {
                readerConnections.append(try await openConnection(path: path, logger: logger))
            }
        } catch {
            try? await writerConnection.close()
            for connection in readerConnections { try? await connection.close() }
            throw error
        }
        return SQLiteDatabase(path: path, writer: writerConnection, readers: readerConnections, counter: counter, logger: logger)
    }

    private init(path: String, writer: SQLiteConnection, readers: [SQLiteConnection], counter: StatementCounter, logger: Logger) {
        self.path = path
        self.writer = ConnectionPool([writer])
        self.readers = ConnectionPool(readers)
        self.counter = counter
        self.logger = logger
    }

    private static func openConnection(path: String, logger: Logger) async throws -> SQLiteConnection {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            throw StorageError.unavailable("cannot open SQLite database \(path): \(error)")
        }
        do {
            for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
                           "PRAGMA busy_timeout=10000"] {
                _ = try await connection.query(pragma)
            }
        } catch {
            try? await connection.close()
            throw SQLiteErrorMapping.map(error)
        }
        return connection
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await readers.with { connection in
            try await body(SQLiteSession(connection: connection, counter: counter))
        }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await writer.with { connection in
            let session = SQLiteSession(connection: connection, counter: counter)
            try await session.execute(SQLStatement("BEGIN IMMEDIATE"))
            do {
                let result = try await body(session)
                try await session.execute(SQLStatement("COMMIT"))
                return result
            } catch {
                do {
                    try await session.execute(SQLStatement("ROLLBACK"))
                } catch {
                    logger.error("SQLite rollback failed", metadata: ["path": .string(path), "error": "\(error)"])
                }
                throw error
            }
        }
    }

    func ping() async throws {
        _ = try await read { try await $0.query(SQLStatement("SELECT 1")) }
    }

    func close() async {
        for connection in await readers.drain() + writer.drain() {
            do {
                try await connection.close()
            } catch {
                logger.error("Closing a SQLite connection failed", metadata: ["path": .string(path), "error": "\(error)"])
            }
        }
    }
}

/// One borrowed SQLite connection.
struct SQLiteSession: DatabaseConnection {
    let connection: SQLiteConnection
    let counter: StatementCounter
    var dialect: SQLDialect { .sqlite }

    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        counter.increment()
        let raw: [SQLiteRow]
        do {
            raw = try await connection.query(statement.sql, statement.binds.map(SQLiteValueCoding.encode))
        } catch {
            throw SQLiteErrorMapping.map(error)
        }
        guard let first = raw.first else { return SQLRows(columns: [], rows: []) }
        let names = first.columns.map(\.name)
        var rows: [[ODataValue]] = []
        rows.reserveCapacity(raw.count)
        for row in raw {
            var values: [ODataValue] = []
            values.reserveCapacity(names.count)
            for (index, column) in row.columns.enumerated() {
                let type = index < types.count ? types[index] : nil
                values.append(try SQLiteValueCoding.decode(column.data, as: type, column: column.name))
            }
            rows.append(values)
        }
        return SQLRows(columns: names, rows: rows)
    }

    func execute(_ statement: SQLStatement) async throws {
        counter.increment()
        do {
            _ = try await connection.query(statement.sql, statement.binds.map(SQLiteValueCoding.encode))
        } catch {
            throw SQLiteErrorMapping.map(error)
        }
    }
}

/// Turns SQLite errors into storage errors that mean something to clients.
enum SQLiteErrorMapping {
    static func map(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        let message = error.message
        switch error.reason {
        case .constraintUniqueFailed, .constraintPrimaryKeyFailed, .constraintUniqueRowIDFailed:
            return StorageError.uniqueViolation(constraint: nil, table: tableName(in: message), detail: message)
        case .constraintForeignKeyFailed:
            return StorageError.foreignKeyViolation(constraint: nil, table: nil, detail: message)
        case .constraint, .constraintNotNullFailed, .constraintCheckFailed, .constraintTriggerFailed,
             .constraintStrictDataTypeFailed:
            return StorageError.constraintViolation(constraint: nil, table: tableName(in: message), detail: message)
        case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath, .notADatabase, .ioError, .corrupt, .full:
            return StorageError.unavailable(message)
        case .interrupt:
            return StorageError.cancelled
        default:
            return StorageError.failed("SQLite: \(error)")
        }
    }

    /// SQLite names the column as `Table.column` in constraint messages.
    private static func tableName(in message: String) -> String? {
        guard let colon = message.lastIndex(of: ":") else { return nil }
        let tail = message[message.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return tail.split(separator: ".").first.map(String.init)
    }
}
