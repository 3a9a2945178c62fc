import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection outside the pool that listens on one `NOTIFY` channel for as long as
/// the server runs, and opens again, with growing pauses, whenever it is lost.
///
/// Outside the pool because it is held for the server's lifetime and must not take a connection
/// from requests, nor be handed to one. It also runs `SELECT 1` every ``heartbeat`` (and closes the
/// connection when that gets no answer within another period), so that a connection that died
/// silently (a network cut, a server that vanished) is noticed rather than waited on forever. It names itself `strata-listener` (PostgreSQL's `application_name`), so that
/// operators see it in `pg_stat_activity`.
package struct PostgresChangeListener: Sendable {
    /// What the listener tells its owner.
    package enum Event: Sendable {
        /// `LISTEN` is in place (again): notifications from now on arrive. `first` is false after a
        /// reconnection, when notifications may have been missed while it was down.
        case listening(first: Bool)
        /// The connection is lost; nothing arrives until the next ``listening(first:)``.
        case lost
        /// A notification's payload.
        case notified(String)
    }

    /// One per host of a multi-host location: each connection goes to the one that accepts writes
    /// (``PostgresPrimarySearch``), as notifications are sent on the primary.
    let configurations: [PostgresConnection.Configuration]
    let channel: String
    let logger: Logger
    /// The pause before the first reconnection; it doubles with each failed one, up to ``maxRetry``.
    package var retry: Duration = .milliseconds(500)
    var maxRetry: Duration = .seconds(30)
    var heartbeat: Duration = .seconds(10)

    /// The name the listening connection gives itself in `pg_stat_activity`.
    static let applicationName = "strata-listener"

    package init(configuration: PostgresConnection.Configuration, channel: String, logger: Logger) {
        self.init(candidates: [configuration], channel: channel, logger: logger)
    }

    /// Listens on the host of `candidates` that accepts writes; with several, it looks for it again at
    /// every reconnection and waits at most two seconds between attempts, so that it finds a
    /// promoted standby as soon as the pool does.
    package init(candidates: [PostgresConnection.Configuration], channel: String, logger: Logger) {
        configurations = candidates.map { candidate in
            var configuration = candidate
            configuration.options.connectTimeout = .seconds(candidates.count > 1 ? 2 : 5)
            configuration.options.additionalStartupParameters = [("TimeZone", "UTC"), ("application_name", Self.applicationName)]
            return configuration
        }
        self.channel = channel
        self.logger = logger
        if candidates.count > 1 { maxRetry = .seconds(2) }
    }

    /// Listens until the task is cancelled, telling `handle` what happens, one event at a time.
    package func run(_ handle: @escaping @Sendable (Event) async -> Void) async {
        var pause = retry
        var first = true
        var id = 0
        while !Task.isCancelled {
            id += 1
            do {
                let (connection, _) = try await PostgresPrimarySearch.connect(configurations, id: -1000 - id, logger: logger)
                pause = retry
                await listen(on: connection, first: first, handle)
                try? await connection.close()
                first = false
            } catch {
                logger.warning("Cannot open the connection that listens for changes from other servers",
                               metadata: ["error": "\(String(reflecting: error))", "retryIn": "\(pause)"])
            }
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, maxRetry)
        }
    }

    /// Listens on one open connection until it fails or the task is cancelled.
    private func listen(on connection: PostgresConnection, first: Bool, _ handle: @escaping @Sendable (Event) async -> Void) async {
        let (channel, logger, heartbeat) = (self.channel, self.logger, self.heartbeat)
        var listened = false
        do {
            try await connection.listen(on: channel) { notifications in
                listened = true
                let pid = try? await connection.query("SELECT pg_backend_pid()", logger: logger).collect().first?.decode(Int32.self)
                logger.info("Listening for changes from other servers", metadata: ["channel": .string(channel), "pid": "\(pid.map(String.init) ?? "?")"])
                await handle(.listening(first: first))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            await handle(.notified(notification.payload))
                        }
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: heartbeat)
                            // A heartbeat that gets no answer within another period closes the
                            // connection, which fails the query and the notifications alike.
                            let watchdog = Task {
                                try await Task.sleep(for: heartbeat)
                                try? await connection.close()
                            }
                            defer { watchdog.cancel() }
                            try await connection.query("SELECT 1", logger: logger)
                        }
                    }
                    // Whichever ends first (the notifications when the connection closes, a failed
                    // heartbeat) ends listening on this connection.
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            if !Task.isCancelled {
                logger.warning("Lost the connection that listens for changes from other servers",
                               metadata: ["error": "\(String(reflecting: error))"])
            }
        }
        if listened { await handle(.lost) }
    }
}
