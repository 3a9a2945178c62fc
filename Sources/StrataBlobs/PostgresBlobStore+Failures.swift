import Foundation
import Logging
import StrataCore
import StrataStorage

extension PostgresBlobStore {
    /// Runs storage work and keeps its detail in the log: a client learns that storage failed
    /// (``BlobStoreError/io(_:)``, a 500 that names nothing), never a statement or a connection.
    /// An unreachable database, a shutdown or a cancelled statement keep their own meaning (503).
    func storing<T>(_ operation: String, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as StorageError {
            switch error {
            case .unavailable, .shuttingDown, .cancelled: throw error
            default: throw failure(operation, error)
            }
        } catch let error as BlobStoreError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw failure(operation, error)
        }
    }

    private func failure(_ operation: String, _ error: any Error) -> BlobStoreError {
        logger.error("Blob storage in PostgreSQL failed", metadata: ["operation": .string(operation), "error": .string(String(reflecting: error))])
        return .io("\(operation) failed")
    }

    /// The whole milliseconds of `duration`.
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Runs `work` in a task of its own, so that it finishes even if the caller's task is cancelled,
    /// with no statement limits of a request.
    static func uncancelled<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task {
            try await StatementLimits.$current.withValue(StatementLimits()) { try await work() }
        }.value
    }
}
