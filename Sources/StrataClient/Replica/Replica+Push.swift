import Foundation
import StrataCore

extension Replica {
    /// What a push did.
    struct PushOutcome {
        var sent = 0
        var applied = 0
        var failed = 0
        var conflicts: [ReplicaConflict] = []
        var replayed = false

        /// Counts a second batch sent by the same sync.
        mutating func add(_ other: PushOutcome) {
            sent += other.sent
            applied += other.applied
            failed += other.failed
            conflicts += other.conflicts
            replayed = replayed || other.replayed
        }
    }

    /// Sends the outbox: seals it (the batch, its body and its idempotency key go to disk first),
    /// sends it, and turns the answer into mutations. A batch sealed by an earlier, interrupted push
    /// is sent again as it was — the same bytes under the same key — so the server applies it once.
    func push() async throws(ReplicaError) -> PushOutcome {
        guard let (sealed, delta) = try seal() else { return PushOutcome() }
        let changes = delta.changes
        let types = fieldTypes()
        setStatus { $0.activity = .uploading }
        let answer = try await send(delta, key: IdempotencyKey(sealed.key)!, fieldTypes: types)
        var outcome = PushOutcome(sent: changes.count, replayed: answer.replayed)
        var mutations: [ReplicaMutation] = []
        var dropped = Set<UInt64>()
        for result in answer.response.results {
            guard let id = UInt64(result.id), let pending = state.pending[id], let table = state.tables[pending.change.table] else { continue }
            switch result.status {
            case .applied:
                outcome.applied += 1
                dropped.insert(id)
                mutations.append(.dropPending(id))
                if pending.change.kind == .delete {
                    mutations.append(.delete(table: table.definition.name, keys: [table.key(of: pending.change)]))
                } else if let row = result.row {
                    mutations.append(.upsert(table: table.definition.name, rows: [table.fields.map { row[$0.name] ?? .null }]))
                }
            case .failed:
                outcome.failed += 1
                var failed = pending
                failed.error = result.message ?? "refused"
                mutations.append(.putPending(failed))
            case .conflict:
                let (settled, conflict) = settle(pending, serverRow: result.serverRow, table: table,
                                                 visible: try visibleRow(table.definition.name, table.key(of: pending.change)))
                mutations += settled
                if settled.contains(.dropPending(id)) { dropped.insert(id) }
                outcome.conflicts.append(conflict)
            }
        }
        mutations += rewriteTemporaryKeys(answer.response.keys, skipping: dropped)
        mutations.append(.unseal)
        try commit(mutations, origin: .push)
        for conflict in outcome.conflicts { emit(.conflict(conflict)) }
        return outcome
    }

    /// Sends a sealed batch. While the server is still applying the same batch from an earlier
    /// attempt (one cut off before its answer: 409 on `$changes` with its idempotency key), waits
    /// and sends it again — the retry then gets that attempt's results — up to about half a minute.
    private func send(_ delta: DataTableDelta, key: IdempotencyKey, fieldTypes types: [String: [String: EDMPrimitiveType]])
        async throws(ReplicaError) -> (response: DataTableChangeResponse, replayed: Bool) {
        var wait = Duration.milliseconds(100)
        var waited = Duration.zero
        while true {
            do {
                return try await adapter.sendDelta(delta.jsonBytes, delta: delta, idempotencyKey: key, fieldTypes: { types[$0] })
            } catch where error.status == 409 && waited < Self.busyBatchPatience {
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    throw ReplicaError(.sync, "the sync was cancelled; the local changes stay queued and go with the next sync")
                }
                waited += wait
                wait = min(wait * 2, .seconds(2))
            } catch {
                throw ReplicaError(.sync, "the local changes could not be sent (they stay queued and go with the next sync): \(error.message)", underlying: error)
            }
        }
    }

    /// How long a push waits for the server to finish applying the same batch sent before.
    static let busyBatchPatience = Duration.seconds(30)

    /// The batch to send: the one sealed by an earlier, interrupted push, or else the outbox sealed
    /// now (the batch and its idempotency key on disk before anything is sent). Nil when there is
    /// nothing to send.
    ///
    /// A sealed change never changes (edits of its row become new changes), so the batch is the
    /// same bytes at every attempt, before a crash and after — what the server checks a retry by.
    func seal() throws(ReplicaError) -> (sealed: ReplicaState.Sealed, delta: DataTableDelta)? {
        if state.sealed == nil {
            let ready = state.pendingInOrder.filter { !$0.isWaiting }
            guard !ready.isEmpty else { return nil }
            // Inserts and updates in the order made, then deletes newest first (details before masters).
            let ordered = ready.filter { $0.change.kind != .delete } + ready.filter { $0.change.kind == .delete }.reversed()
            try commit([.seal(key: IdempotencyKey.random().value, ids: ordered.map(\.id))], origin: .push)
        }
        guard let sealed = state.sealed else { return nil }
        return (sealed, DataTableDelta(mode: .independent, changes: sealed.ids.compactMap { state.pending[$0]?.change }))
    }

    /// The table's policy applied to a conflict: the mutations, and the conflict as reported.
    /// `visible` is the row as the app sees it now.
    func settle(_ pending: PendingChange, serverRow: DataTableValues?, table: ReplicaState.Table, visible: [ODataValue]?)
        -> ([ReplicaMutation], ReplicaConflict) {
        let name = table.definition.name
        let key = table.key(of: pending.change)
        let keyNames = Set(table.fields.filter(\.key).map(\.name))
        var serverSide: [ReplicaMutation] = []
        if let serverRow { serverSide = [.upsert(table: name, rows: [table.fields.map { serverRow[$0.name] ?? .null }])] }
        var change = pending
        change.error = nil
        func original(_ row: DataTableValues) -> DataTableValues {
            row.filter { field, _ in !keyNames.contains(field) && (change.change.kind == .delete || change.change.values[field] != nil) }
        }
        func wait() -> ([ReplicaMutation], ReplicaConflict) {
            var waiting = change
            if serverRow == nil, waiting.change.kind == .update {
                // The server deleted the row: keep the whole local row, so that keeping it can insert it again.
                var whole = visible.map { Dictionary(uniqueKeysWithValues: zip(table.fields.map(\.name), $0)) } ?? [:]
                for field in keyNames { whole[field] = nil }
                waiting.change.values = whole.merging(waiting.change.values) { _, local in local }
            }
            waiting.conflict = .init(values: serverRow)
            return (serverSide + [.putPending(waiting)], conflict(of: waiting, outcome: .waiting))
        }
        switch table.definition.conflicts {
        case .ask:
            return wait()
        case .serverWins:
            let gone: [ReplicaMutation] = serverRow == nil ? [.delete(table: name, keys: [key])] : []
            var reported = conflict(of: change, outcome: .serverKept)
            reported.serverRow = serverRow
            return (serverSide + gone + [.dropPending(change.id)], reported)
        case .clientWins, .mergeFields:
            guard let serverRow else {
                if change.change.kind == .delete {
                    var reported = conflict(of: change, outcome: .serverKept)
                    reported.serverRow = nil
                    return ([.delete(table: name, keys: [key]), .dropPending(change.id)], reported)
                }
                return wait()
            }
            var kept = Set<String>()
            if table.definition.conflicts == .mergeFields, change.change.kind == .update {
                for (field, _) in change.change.values where serverRow[field] != change.change.original[field] {
                    kept.insert(field)
                }
                for field in kept { change.change.values[field] = nil }
            }
            var reported = conflict(of: pending, outcome: kept.isEmpty ? .localResent : .merged(serverKept: kept))
            reported.serverRow = serverRow
            if change.change.kind == .update, change.change.values.isEmpty {
                return (serverSide + [.dropPending(change.id)], reported)
            }
            change.change.original = original(serverRow)
            return (serverSide + [.putPending(change)], reported)
        }
    }

    /// After inserts were acknowledged: the other pending changes that use their temporary keys —
    /// as their own key, or as a foreign key value — get the server's keys.
    private func rewriteTemporaryKeys(_ keys: [String: [DataTableChangeResponse.KeyAssignment]], skipping dropped: Set<UInt64>) -> [ReplicaMutation] {
        var assigned: [Int64: ODataValue] = [:]
        for assignments in keys.values {
            for assignment in assignments {
                for (field, temporary) in assignment.temporary {
                    guard let value = temporary.integerValue, value < 0, let stored = assignment.key[field] else { continue }
                    assigned[value] = stored
                }
            }
        }
        guard !assigned.isEmpty else { return [] }
        func rewrite(_ values: DataTableValues) -> DataTableValues {
            values.mapValues { value in
                guard let integer = value.integerValue, integer < 0, let stored = assigned[integer] else { return value }
                return stored
            }
        }
        var mutations: [ReplicaMutation] = []
        for pending in state.pendingInOrder where !dropped.contains(pending.id) {
            var changed = pending
            changed.change.key = rewrite(pending.change.key)
            changed.change.values = rewrite(pending.change.values)
            changed.change.original = rewrite(pending.change.original)
            if changed != pending { mutations.append(.putPending(changed)) }
        }
        return mutations
    }

    /// Each table's field types by name.
    func fieldTypes() -> [String: [String: EDMPrimitiveType]] {
        var types: [String: [String: EDMPrimitiveType]] = [:]
        for (name, table) in state.tables {
            types[name] = Dictionary(table.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        }
        return types
    }
}
