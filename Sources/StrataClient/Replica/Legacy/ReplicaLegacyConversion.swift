import Foundation
import StrataCore

/// Converts a replica directory of the format before the local database — a snapshot and a
/// journal (``ReplicaFiles``) — into the database, on its first open by this version.
///
/// The old state is read exactly as the old replica read it (the snapshot, then the journal's whole
/// records replayed), then written into the database in one transaction with its table definitions,
/// rows, delta tokens, unsent changes, the batch being sent with its idempotency key, and the
/// counters. Only after that transaction commits are the old files removed; a crash before leaves
/// them, and the next open converts again from the start.
enum ReplicaLegacyConversion {
    /// Converts the directory's snapshot and journal into `database` (new and empty), and answers
    /// the state it now holds.
    static func convert(_ directory: URL, lock: ReplicaLock, into database: ReplicaDatabase) throws(ReplicaError) -> ReplicaState {
        let legacy = try read(directory, lock: lock)
        var state = ReplicaState(definition: legacy.order.compactMap { legacy.tables[$0]?.definition })
        var mutations: [ReplicaMutation] = []
        for name in legacy.order {
            guard let table = legacy.tables[name], table.isDownloaded else { continue }
            mutations.append(.replace(table: name, fields: table.fields, rows: Array(table.server.values), token: table.token))
        }
        for change in legacy.pendingInOrder { mutations.append(.putPending(change)) }
        if let sealed = legacy.sealed { mutations.append(.seal(key: sealed.key, ids: sealed.ids)) }
        mutations.append(.counters(nextChange: legacy.nextChange, nextTemporaryKey: legacy.nextTemporaryKey))
        try database.apply(mutations, to: &state, initializing: true)
        ReplicaFiles.remove(from: directory)
        return state
    }

    /// The state the old files hold, under the definitions they were written with.
    static func read(_ directory: URL, lock: ReplicaLock) throws(ReplicaError) -> ReplicaJournalState {
        let files = try ReplicaFiles(directory: directory, lock: lock)
        defer { files.release() }
        let contents = try files.read()
        var state = ReplicaJournalState(definition: [])
        do {
            if let snapshot = contents.snapshot { state = try ReplicaSnapshot.read(snapshot) }
            for record in contents.records {
                let json = try JSONValue.parse(record)
                guard case .array(let items) = json else { throw DataTableFormatError("a journal record is not a list") }
                for item in items { state.apply(try ReplicaMutation.read(item, state: state)) }
            }
        } catch let error as DataTableFormatError {
            throw ReplicaError(.damaged, "the replica in \(directory.path) (snapshot and journal of an earlier version) does not read back (\(error.message)); delete the directory to download it again")
        } catch {
            throw ReplicaError(.damaged, "the replica in \(directory.path) (snapshot and journal of an earlier version) does not read back (\(error)); delete the directory to download it again")
        }
        return state
    }
}
