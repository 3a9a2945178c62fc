import Foundation
import StrataCore

/// What one ``Replica/sync()`` did.
public struct SyncReport: Sendable, Hashable {
    /// Local changes sent.
    public var sent = 0
    /// Of those, how many the server applied.
    public var applied = 0
    /// Of those, how many it refused (they stay pending with the reason, ``LocalChange/error``).
    public var failed = 0
    /// Conflicts met while sending, as their tables' policies settled them.
    public var conflicts: [ReplicaConflict] = []
    /// True when the server had applied a batch before (a retried push) and answered it from its receipts.
    public var replayed = false
    /// Rows received (inserted or changed) by the pull.
    public var received = 0
    /// Rows removed by the pull: deleted on the server, or out of the table's filter or your rights now.
    public var removed = 0
    /// Tables downloaded whole: the first sync, or a reload after the server forgot the token (410).
    public var reloaded: [String] = []
    /// How long the pull spent writing what it received into the local database — downloads read
    /// from their file and inserted, delta pages applied — apart from waiting for the server.
    public var applyDuration: Duration = .zero
}

extension Replica {
    /// Sends the local changes, then reads what changed on the server, table by table.
    ///
    /// Safe to call at any time and to repeat: a push cut off (offline, a timeout, the app killed)
    /// is sent again by the next sync under the same idempotency key and applied once. A table
    /// whose delta token the server no longer knows is downloaded again; unsent local changes stay
    /// on top. While offline it throws ``ReplicaError/Kind/sync`` and the replica keeps working.
    @discardableResult
    public func sync() async throws(ReplicaError) -> SyncReport {
        var report = SyncReport()
        do {
            // A batch sealed by an interrupted sync goes first, as it was; the changes made since
            // then are not in it, so they go in a second batch of the same sync — otherwise a sync
            // after a crash would end with changes still queued while the server is reachable.
            let resuming = state.sealed != nil
            var pushed = try await push()
            if resuming { pushed.add(try await push()) }
            report.sent = pushed.sent
            report.applied = pushed.applied
            report.failed = pushed.failed
            report.conflicts = pushed.conflicts
            report.replayed = pushed.replayed
            setStatus { $0.activity = .downloading }
            for name in state.order where !liveTables.contains(name) {
                let pulled = try await pull(name)
                report.received += pulled.received
                report.removed += pulled.removed
                report.applyDuration += pulled.applying
                if pulled.reloaded { report.reloaded.append(name) }
            }
        } catch {
            setStatus {
                $0.activity = error.kind == .sync ? .offline : .idle
                $0.lastError = error.message
            }
            throw error
        }
        setStatus {
            $0.activity = .idle
            $0.lastSynced = Date()
            $0.lastError = nil
        }
        return report
    }

    /// Reads one table's changes since its token, or the whole table when it has none or the
    /// server answers 410.
    ///
    /// Each page is applied as it comes, in a transaction of its own, with the token only after the
    /// last: a sync cut off between pages reads the changes again from the old token, and applying
    /// a page twice changes nothing (its rows are current values, its deletions final).
    func pull(_ name: String) async throws(ReplicaError) -> Pulled {
        let table = try shape(name)
        let definition = table.definition
        guard let token = table.token, table.isDownloaded else { return try await reload(name) }
        var request: StrataRequest? = adapter.deltaRequest(name, where: definition.filter, since: token)
        var pages = RemoteDataAdapter.DeltaPages()
        var pulled = Pulled()
        while let next = request {
            let generation = generations[name, default: 0]
            let page: (tables: [CompactTable], token: String?, next: StrataRequest?)
            do {
                page = try await adapter.deltaPage(next, &pages)
            } catch where error.kind == .deltaTokenGone {
                // The server no longer knows the token: download again, keeping the outbox.
                return try await reload(name)
            } catch {
                throw ReplicaError(.sync, "could not read the changes of \(name): \(error.message)", underlying: error)
            }
            // The live stream applied something newer meanwhile: this delta is older than the table.
            guard generations[name, default: 0] == generation else { return pulled }
            let started = ContinuousClock.now
            let applied = try apply(page.tables, token: page.token, to: name, origin: .pull)
            pulled.applying += ContinuousClock.now - started
            guard let applied else {
                // Rows of another shape: the server's model changed, so read it again too.
                serviceModel = nil
                var reloaded = try await reload(name)
                reloaded.applying += pulled.applying
                return reloaded
            }
            pulled.received += applied.received
            pulled.removed += applied.removed
            request = page.next
        }
        return pulled
    }

    /// Downloads a table whole with a new token, replacing its rows (local changes stay on top).
    ///
    /// The answer goes to a file in the replica's directory as it arrives, and its rows go from
    /// that file into a staging table while the rest is still arriving, a transaction per half
    /// megabyte (`TableDownload`): the download and the inserts overlap, and memory does not grow
    /// with the table. The app sees the table as it was until the last transaction makes the
    /// staging table the table; between the batches the replica answers queries and takes local
    /// edits as usual.
    func reload(_ name: String) async throws(ReplicaError) -> Pulled {
        let definition = try self.table(name).definition
        let generation = generations[name, default: 0]
        let document = database.downloadFile()
        defer { try? FileManager.default.removeItem(at: document) }
        let download = TableDownload(name: name, document: document)
        // Each report comes after its bytes are in the file; only the newest matters. The loop
        // below reads them on the actor: the status and the staging table follow the same report.
        let (arrivals, arrived) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let adapter = self.adapter
        setStatus { $0.download = SyncStatus.Download(table: name, receivedBytes: 0, expectedBytes: nil) }
        let transfer = Task { () -> StrataError? in
            defer { arrived.finish() }
            do throws(StrataError) {
                try await adapter.downloadTrackedTable(name, where: definition.filter, to: document, inPlace: true) { progress in
                    if progress.direction == .download { arrived.yield(progress) }
                }
                return nil
            } catch {
                return error
            }
        }
        var applying: Duration = .zero
        do throws(ReplicaError) {
            let foreignKeys = await foreignKeys(of: name)
            // The arrivals end with the transfer, or at once when this task is cancelled (which
            // then cancels the transfer, below).
            for await progress in arrivals {
                downloaded(name, progress)
                let available = progress.completedBytes
                guard available - download.consumed >= Self.stagingBatch else { continue }
                guard !closed else { throw ReplicaError(.closed, "the replica was closed; open it again") }
                let started = ContinuousClock.now
                try database.stage(download, upTo: available, state: state)
                applying += ContinuousClock.now - started
            }
            if Task.isCancelled { transfer.cancel() }
            if let failed = await transfer.value {
                throw ReplicaError(.sync, "could not download \(name): \(failed.message)", underlying: failed)
            }
            setStatus { $0.download = nil }
            guard generations[name, default: 0] == generation, !closed else {
                database.discard(download)
                if closed { throw ReplicaError(.closed, "the replica was closed; open it again") }
                return Pulled()
            }
            generations[name, default: 0] += 1
            let before = try state.tables[name].map { table throws(ReplicaError) in try database.serverCount(of: table, state: state) } ?? 0
            let started = ContinuousClock.now
            let received = try database.adopt(download, foreignKeys: foreignKeys, in: &state)
            noteCommitted([name: Set<RowKey>?.none], origin: .pull)
            applying += ContinuousClock.now - started
            return Pulled(received: received, removed: max(0, before - received), reloaded: true, applying: applying)
        } catch {
            transfer.cancel()
            _ = await transfer.value
            setStatus { $0.download = nil }
            database.discard(download)
            throw error
        }
    }

    /// How much of a download arrives before its rows go into the staging table: a transaction
    /// per half a megabyte or more (some 7,000 rows of a table of six columns), so that little is
    /// left to insert once the last byte is in.
    static let stagingBatch: Int64 = 512 << 10

    /// Replaces a table with a downloaded `$tables` answer on disk, in one transaction; answers the
    /// rows read. Observers hear of the whole table.
    func replace(_ name: String, document: URL, foreignKeys: [[String]]) throws(ReplicaError) -> Int {
        guard !closed else { throw ReplicaError(.closed, "the replica was closed; open it again") }
        let received = try database.replace(name, document: document, foreignKeys: foreignKeys, in: &state)
        noteCommitted([name: Set<RowKey>?.none], origin: .pull)
        return received
    }

    /// What pulling one table did: rows received and removed, whether it was downloaded whole, and
    /// the time spent writing it into the local database.
    struct Pulled {
        var received = 0
        var removed = 0
        var reloaded = false
        var applying: Duration = .zero
    }

    /// The table's foreign keys from the service's model (`$metadata`), each as its fields: the
    /// local table indexes them. Empty when the model cannot be read — the indexes only make joins
    /// faster, and a download is not refused for want of them.
    private func foreignKeys(of name: String) async -> [[String]] {
        if serviceModel == nil { serviceModel = try? await adapter.dataService.model() }
        guard let model = serviceModel, let set = model.entitySet(named: name) else { return [] }
        let type = model.entityType(of: set)
        return model.associations
            .filter { $0.dependent.entityType == type.qualifiedName || $0.dependent.entityType == type.name }
            .map(\.dependentColumns)
    }

    private func downloaded(_ name: String, _ progress: TransferProgress) {
        guard status.download?.table == name else { return }
        setStatus { $0.download = SyncStatus.Download(table: name, receivedBytes: progress.completedBytes, expectedBytes: progress.expectedBytes) }
    }

    /// Applies the rows and deleted keys of a delta or a change event, and the token after it. Nil
    /// when the server's fields of the table changed (its model was reloaded): the caller downloads
    /// the table again, since rows of the new shape do not fit the old one.
    func apply(_ tables: [CompactTable], token: String?, to name: String, origin: ReplicaEvent.Origin) throws(ReplicaError)
        -> (received: Int, removed: Int, reloaded: Bool)? {
        let stored = try shape(name)
        var mutations: [ReplicaMutation] = []
        var received = 0, removed = 0
        for part in tables where part.name == name {
            guard part.fields.map(\.name) == stored.fields.map(\.name) else { return nil }
            if !part.rows.isEmpty { mutations.append(.upsert(table: name, rows: part.rows)) }
            if let deleted = part.deleted, !deleted.isEmpty { mutations.append(.delete(table: name, keys: deleted)) }
            received += part.rows.count
            removed += part.deleted?.count ?? 0
        }
        if let token { mutations.append(.token(table: name, token)) }
        generations[name, default: 0] += 1
        try commit(mutations, origin: origin)
        return (received, removed, false)
    }
}
