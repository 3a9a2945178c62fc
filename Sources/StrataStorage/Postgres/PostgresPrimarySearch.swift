import Logging
import PostgresNIO

/// Finds the host that accepts writes among a multi-host location's, as libpq does with
/// `target_session_attrs=read-write`: postgres-nio connects to one host only, so each is tried in
/// order and asked `pg_is_in_recovery()`; a standby is closed and passed over.
enum PostgresPrimarySearch {
    /// A connection to the first of `candidates` that accepts writes, and which one it is. With one
    /// candidate it is connected to and not asked (as before multi-host locations existed).
    static func connect(_ candidates: [PostgresConnection.Configuration], id: Int, logger: Logger) async throws
        -> (PostgresConnection, Int) {
        if candidates.count == 1 {
            return (try await PostgresConnection.connect(configuration: candidates[0], id: id, logger: logger), 0)
        }
        var failures: [String] = []
        for (index, candidate) in candidates.enumerated() {
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(configuration: candidate, id: id, logger: logger)
            } catch {
                failures.append("\(candidate.host ?? "?"):\(candidate.port ?? 0): \(String(describing: error))")
                continue
            }
            do {
                let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: logger).collect()
                if try rows.first?.decode(Bool.self) == false { return (connection, index) }
                failures.append("\(candidate.host ?? "?"):\(candidate.port ?? 0): a standby")
            } catch {
                failures.append("\(candidate.host ?? "?"):\(candidate.port ?? 0): \(String(describing: error))")
            }
            // postgres-nio requires every connection to be closed before it is released.
            try? await connection.close()
        }
        throw StorageError.unavailable("no host accepts writes (\(failures.joined(separator: "; ")))")
    }
}
