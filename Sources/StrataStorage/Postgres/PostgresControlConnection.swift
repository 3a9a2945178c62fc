import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection outside the pool, for what must work when the pool is busy or broken:
/// health checks and cancel requests for statements running on pooled connections.
///
/// It opens on first use and again after a failure, with a short connect timeout, so that a check
/// against a server that is down answers in about a second instead of waiting for the pool.
/// Statements run one at a time; each is short by construction (`SELECT 1`, `pg_cancel_backend`).
package actor PostgresControlConnection {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private var connection: PostgresConnection?
    /// Set by ``close()``: a connection that finishes opening afterwards is closed at once.
    private var closed = false
    private var opening: Task<PostgresConnection, any Error>?
    private var nextID = 0

    /// How long opening the connection may take; also each statement's `statement_timeout`.
    static let timeout: Duration = .seconds(2)

    package init(configuration: PostgresConnection.Configuration, logger: Logger) {
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(Int64(Self.timeout.components.seconds))
        configuration.options.additionalStartupParameters = [
            ("TimeZone", "UTC"), ("statement_timeout", String(Self.timeout.components.seconds * 1000)),
        ]
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs one statement; the connection is closed and dropped when it fails, so that the next
    /// call reconnects.
    func run(_ query: PostgresQuery) async throws {
        let connection = try await open()
        do {
            try await connection.query(query, logger: logger)
        } catch {
            await drop(connection)
            throw error
        }
    }

    /// Runs one statement and answers its first row's columns as text (nil for NULL); nil when it
    /// returns no row. The connection is dropped when it fails, as with ``run(_:)``.
    func firstRow(_ query: PostgresQuery) async throws -> [String?]? {
        let connection = try await open()
        do {
            guard let row = try await connection.query(query, logger: logger).collect().first else { return nil }
            return try row.map { try $0.decode(String?.self) }
        } catch {
            await drop(connection)
            throw error
        }
    }

    /// The open connection, or a new one. Callers that arrive while one is being opened wait for
    /// that one (the actor is reentrant at each `await`; two openings would leak one).
    private func open() async throws -> PostgresConnection {
        guard !closed else { throw CancellationError() }
        if let connection {
            if !connection.isClosed { return connection }
            await drop(connection)
        }
        if let opening { return try await opening.value }
        nextID += 1
        let (configuration, id, logger) = (self.configuration, -nextID, self.logger)
        let task = Task { try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger) }
        opening = task
        defer { opening = nil }
        let opened = try await task.value
        // Closed while it opened: postgres-nio requires it closed before it is released.
        guard !closed else {
            try? await opened.close()
            throw CancellationError()
        }
        connection = opened
        return opened
    }

    /// postgres-nio requires every connection to be closed before it is released.
    private func drop(_ dropped: PostgresConnection) async {
        if connection === dropped { connection = nil }
        try? await dropped.close()
    }

    func close() async {
        closed = true
        try? await connection?.close()
        connection = nil
    }
}
