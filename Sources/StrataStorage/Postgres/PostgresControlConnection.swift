import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection outside the pool, for what must work when the pool is busy or broken:
/// health checks and cancel requests for statements running on pooled connections.
///
/// It opens on first use and again after a failure, with a short connect timeout, so that a check
/// against a server that is down answers in about a second instead of waiting for the pool.
/// Statements run one at a time; each is short by construction (`SELECT 1`, `pg_cancel_backend`).
///
/// Given several hosts (a multi-host `--database`), it opens a connection to the first one, in
/// order, that accepts writes (`pg_is_in_recovery()` is false), and ``check()`` fails once the host
/// it holds is no longer that: so that after a failover the server looks for the new primary.
package actor PostgresControlConnection {
    private let configurations: [PostgresConnection.Configuration]
    /// Which of ``configurations`` the open connection goes to.
    package private(set) var hostIndex: Int?
    private let logger: Logger
    private var connection: PostgresConnection?
    /// Set by ``close()``: a connection that finishes opening afterwards is closed at once.
    private var closed = false
    private var opening: Task<(PostgresConnection, Int), any Error>?
    private var nextID = 0

    /// How long opening the connection may take; also each statement's `statement_timeout`.
    static let timeout: Duration = .seconds(2)

    package init(configuration: PostgresConnection.Configuration, logger: Logger) {
        self.init(candidates: [configuration], logger: logger)
    }

    /// A control connection to whichever of `candidates` accepts writes (one candidate: that one, unchecked).
    package init(candidates: [PostgresConnection.Configuration], logger: Logger) {
        configurations = candidates.map { candidate in
            var configuration = candidate
            configuration.options.connectTimeout = .seconds(Int64(Self.timeout.components.seconds))
            configuration.options.additionalStartupParameters = [
                ("TimeZone", "UTC"), ("statement_timeout", String(Self.timeout.components.seconds * 1000)),
            ]
            return configuration
        }
        self.logger = logger
    }

    /// Whether the database answers, and with several hosts, whether the one held still accepts
    /// writes; throws otherwise (dropping the connection, so that the next use looks again).
    package func check() async throws {
        guard configurations.count > 1 else { return try await run("SELECT 1") }
        guard try await firstRow("SELECT pg_is_in_recovery()::text")?.first == "false" else {
            if let connection { await drop(connection) }
            throw StorageError.unavailable("the PostgreSQL host held is a standby now")
        }
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
        if let opening { return try await opening.value.0 }
        nextID += 1
        let (configurations, id, logger) = (self.configurations, -nextID, self.logger)
        let task = Task { try await PostgresPrimarySearch.connect(configurations, id: id, logger: logger) }
        opening = task
        defer { opening = nil }
        let (opened, index) = try await task.value
        hostIndex = index
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
