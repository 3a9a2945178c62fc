import Foundation
import StrataCore

extension Replica {
    /// Follows the server's change stream (`$feed`, one subscription per table with its filter)
    /// and applies each committed transaction as it comes, until ``stopLive()`` or ``close()``.
    ///
    /// Each subscription resumes from the table's own token, so nothing is missed or applied twice
    /// across reconnects (the stream reconnects by itself with backoff, and ``SyncStatus/connected``
    /// says whether it is up). A table the server can no longer follow from its token (410 or a
    /// `gone` event) is downloaded again, keeping unsent changes, and followed from the new token.
    /// Local changes are still sent by ``sync()``; while a table is followed live, a sync does not
    /// pull it.
    public func startLive(retry: Duration = .seconds(2), maximumRetry: Duration = .seconds(60)) {
        guard live == nil, !closed else { return }
        let names = state.order
        live = Task {
            await withTaskGroup(of: Void.self) { group in
                for name in names { group.addTask { await self.follow(name, retry: retry, maximumRetry: maximumRetry) } }
            }
        }
    }

    /// Stops following the change stream.
    public func stopLive() {
        live?.cancel()
        live = nil
        liveTables = []
        setStatus { $0.connected = false }
    }

    private func follow(_ name: String, retry: Duration, maximumRetry: Duration) async {
        var delay = retry
        while !Task.isCancelled, !closed {
            do {
                if state.tables[name]?.token == nil { _ = try await reload(name) }
                guard let token = state.tables[name]?.token, let definition = state.tables[name]?.definition else { return }
                let configuration = EventStreamConfiguration(initialRetry: retry, maximumRetry: maximumRetry) { [weak self] change in
                    Task { await self?.streamState(name, change) }
                }
                events: for try await event in adapter.changeStream([name], filter: definition.filter, since: token, configuration: configuration) {
                    switch event {
                    case .ready:
                        delay = retry
                    case .changes(let batch):
                        delay = retry
                        // Rows of another shape (the model changed): download again, then follow from the new token.
                        guard try apply(batch.tables, token: batch.token, to: name, origin: .live) != nil else {
                            serviceModel = nil
                            _ = try await reload(name)
                            break events
                        }
                    case .gone:
                        _ = try await reload(name)
                    }
                }
            } catch {
                setStatus { $0.lastError = "live changes of \(name): \(error)" }
            }
            liveTables.remove(name)
            setStatus { $0.connected = !liveTables.isEmpty }
            // The stream ended (gone, refused, or failed for good): start again from the table's token.
            try? await Task.sleep(for: delay)
            delay = min(maximumRetry, delay * 2)
        }
    }

    private func streamState(_ name: String, _ change: EventStreamState) {
        guard live != nil else { return }
        switch change {
        case .open:
            liveTables.insert(name)
        case .connecting, .waiting:
            liveTables.remove(name)
        }
        let connected = !liveTables.isEmpty
        setStatus {
            $0.connected = connected
            if connected { $0.lastError = nil }
        }
    }
}
