import Logging
import Synchronization
import StrataOData
import StrataStorage

/// Deletes changes older than the retention from every tracked service's log
/// (docs/design/CHANGE-FEED.md §1, "Retention and pruning"), and change-set receipts as old
/// (``ChangeReceipts``: a replica offline longer than the retention reloads anyway): once at start, then every
/// ``StrataConfiguration/changePruneInterval``. Each batch is its own short transaction
/// (``ChangeLog/prune(olderThan:batch:)``), so writers wait for one batch at most.
final class ChangeLogPruner: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts the periodic pruning of the services `services()` answers at each run.
    func start(retention: Duration, interval: Duration, logger: Logger, services: @escaping @Sendable () -> [ODataService]) {
        let running = Task {
            while !Task.isCancelled {
                await Self.pruneAll(services(), retention: retention, logger: logger)
                try? await Task.sleep(for: interval)
            }
        }
        task.withLock { previous in
            previous?.cancel()
            previous = running
        }
    }

    func stop() {
        task.withLock { running in
            running?.cancel()
            running = nil
        }
    }

    /// One pass over the tracked services; a failure is logged and the next pass tries again.
    static func pruneAll(_ services: [ODataService], retention: Duration, logger: Logger) async {
        await StatementCounter.$isUpkeep.withValue(true) {
            await prune(services, retention: retention, logger: logger)
        }
    }

    private static func prune(_ services: [ODataService], retention: Duration, logger: Logger) async {
        for service in services {
            guard !Task.isCancelled else { return }
            do {
                try await ChangeReceipts(storage: service.storage).prune(olderThan: retention)
            } catch {
                logger.warning("Pruning change-set receipts failed", metadata: ["service": .string(service.name), "error": "\(error)"])
            }
            guard !service.trackedTables.isEmpty else { continue }
            do {
                let deleted = try await ChangeLog(storage: service.storage).prune(olderThan: retention)
                if deleted > 0 {
                    logger.info("Pruned the change log", metadata: ["service": .string(service.name), "changes": "\(deleted)"])
                }
            } catch {
                logger.warning("Pruning the change log failed", metadata: ["service": .string(service.name), "error": "\(error)"])
            }
        }
    }
}
