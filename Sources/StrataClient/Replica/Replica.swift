import Foundation
import StrataCore

/// A local copy of some tables of a data service that works offline and syncs both ways
/// (docs/design/OFFLINE-SYNC.md; the DocC article "Building an offline-first app").
///
/// ```swift
/// let replica = try await Replica.open(at: folder, adapter: RemoteDataAdapter(dataService: cardealer),
///                                      tables: [ReplicaTable("Person"), ReplicaTable("Car", where: "year ge 2000")])
/// let key = try await replica.insert(into: "Person", ["firstName": .string("Ada")])  // at once, offline too
/// try await replica.sync()   // sends the outbox, then reads what changed
/// ```
///
/// - Reads are local: ``rows(_:)``, ``row(_:key:)`` and ``rows(_:matching:orderBy:descending:limit:)``
///   show the server's rows with this device's unsent changes applied; ``query(_:_:)`` runs
///   read-only SQL over the local tables, joins included.
/// - Writes apply at once and are on disk before the call returns (``insert(into:_:)``,
///   ``update(_:key:_:)``, ``delete(from:key:)``).
/// - ``sync()`` pushes the outbox as one `$changes` request under an idempotency key — written to
///   disk before it is sent, so a push cut off at any point is sent again with the same key and
///   applied once — then pulls each table's delta (the whole table the first time, or after a
///   `410`), keeping unsent changes on top.
/// - ``startLive()`` follows the server's change stream while online.
/// - The directory holds one SQLite database, `replica.sqlite` (``ReplicaDatabase``): the tables
///   with the server's columns, the outbox, the batch being sent with its idempotency key, the
///   delta tokens and the definitions. Each call is one transaction, on disk before it returns: a
///   crash at any moment leaves the state after the last completed call. Rows are read from the
///   database when asked for, so memory does not grow with the replica.
/// - A directory written by an earlier version (a snapshot and a journal) is converted on its
///   first open.
public actor Replica {
    let adapter: RemoteDataAdapter
    let lock: ReplicaLock
    let database: ReplicaDatabase
    var state: ReplicaState
    var status = SyncStatus()
    var observers: [UUID: AsyncStream<ReplicaEvent>.Continuation] = [:]
    var live: Task<Void, Never>?
    /// Tables whose change stream is open: a sync does not pull them.
    var liveTables: Set<String> = []
    /// Per table, how many times its server rows were replaced or advanced: a pull that finds a
    /// later number than it started with lost a race with the live stream and is not applied.
    var generations: [String: Int] = [:]
    var closed = false
    /// The service's model as last read for foreign keys (``reload(_:)``): read once, and again
    /// after the server's fields of a table changed (its model was reloaded).
    var serviceModel: ServiceModel?

    private init(adapter: RemoteDataAdapter, lock: ReplicaLock, database: ReplicaDatabase, state: ReplicaState) {
        self.adapter = adapter
        self.lock = lock
        self.database = database
        self.state = state
        status.pendingCount = state.pending.count
        status.waitingConflicts = state.pending.values.filter(\.isWaiting).count
    }

    /// Opens the replica in `directory` (creating it), for these tables of the adapter's service.
    ///
    /// Nothing is downloaded here: the rows of a new replica come with the first ``sync()``. A
    /// table whose `where` changed since the replica was last opened is downloaded again; a table
    /// no longer listed is dropped with its unsent changes.
    /// - Throws: ``ReplicaError`` ``ReplicaError/Kind/inUse`` when another process has it open,
    ///   ``ReplicaError/Kind/damaged`` naming the file when its database (or an earlier version's
    ///   snapshot) does not read back, ``ReplicaError/Kind/storage`` when the directory cannot be written.
    public static func open(at directory: URL, adapter: RemoteDataAdapter, tables: [ReplicaTable]) async throws(ReplicaError) -> Replica {
        let names = tables.map(\.name)
        guard Set(names).count == names.count, !names.isEmpty else {
            throw ReplicaError(.invalidChange, "name each table once, and at least one: \(names)")
        }
        let lock = try ReplicaLock(directory: directory)
        let database = try ReplicaDatabase(directory: directory)
        ReplicaDatabase.removeDownloads(in: directory)
        try database.dropStagingTables()
        var state: ReplicaState
        if try database.holdsReplica() {
            state = try database.load()
            // A conversion that committed but stopped before removing the old files.
            if ReplicaFiles.exists(in: directory) { ReplicaFiles.remove(from: directory) }
        } else if ReplicaFiles.exists(in: directory) {
            state = try ReplicaLegacyConversion.convert(directory, lock: lock, into: database)
        } else {
            state = ReplicaState(definition: tables)
            try database.apply([], to: &state, initializing: true)
        }
        try database.reconcile(&state, with: tables)
        return Replica(adapter: adapter, lock: lock, database: database, state: state)
    }

    /// Stops the live stream and releases the directory; later calls throw ``ReplicaError/Kind/closed``.
    public func close() {
        closed = true
        live?.cancel()
        live = nil
        for observer in observers.values { observer.finish() }
        observers = [:]
        database.close()
        lock.release()
    }

    // MARK: Reading

    /// The rows of a table as the app sees them, in key order.
    public func rows(_ table: String) throws(ReplicaError) -> [ReplicaRow] {
        let stored = try self.table(table)
        guard stored.isDownloaded else { return [] }
        return try database.rows(of: stored).map { values in replicaRow(stored, values) }
    }

    /// One row by its key values; nil when the replica has no such row.
    public func row(_ table: String, key: DataTableValues) throws(ReplicaError) -> ReplicaRow? {
        let stored = try self.table(table)
        let rowKey = try self.key(key, of: stored)
        return try database.row(of: stored, key: rowKey).map { replicaRow(stored, $0) }
    }

    /// Rows by key (in key-field order); nil for a key the replica has no row for (any more).
    public func rows(_ table: String, keys: some Collection<[ODataValue]>) throws(ReplicaError) -> [[ODataValue]: ReplicaRow?] {
        let stored = try self.table(table)
        var rows: [[ODataValue]: ReplicaRow?] = [:]
        guard stored.isDownloaded else {
            for key in keys { rows[key] = .some(nil) }
            return rows
        }
        for key in keys {
            rows[key] = .some(try database.row(of: stored, key: key).map { replicaRow(stored, $0) })
        }
        return rows
    }

    /// How many rows a table has as the app sees them.
    public func count(_ table: String) throws(ReplicaError) -> Int {
        let stored = try self.table(table)
        guard stored.isDownloaded else { return 0 }
        return try database.count(of: stored)
    }

    func replicaRow(_ table: ReplicaState.Table, _ values: [ODataValue]) -> ReplicaRow {
        let key = table.key(of: values)
        return ReplicaRow(fields: table.fields, values: values, hasPendingChanges: state.hasPendingChanges(table.definition.name, key: key), id: key)
    }

    /// The fields of a table; empty before its first download.
    public func fields(_ table: String) throws(ReplicaError) -> [DataTableField] {
        try self.table(table).fields
    }

    /// Where the replica stands.
    public var syncStatus: SyncStatus { status }

    /// Conflicts waiting for ``resolve(_:_:)`` (tables with ``ConflictPolicy/ask``, and rows the
    /// server deleted under ``ConflictPolicy/mergeFields`` or ``ConflictPolicy/clientWins``).
    public var waitingConflicts: [ReplicaConflict] {
        state.pendingInOrder.filter(\.isWaiting).map { conflict(of: $0, outcome: .waiting) }
    }

    /// Every event from now on: changed rows (local edits in the same call that made them),
    /// conflicts and status changes. Several observers may listen; each gets its own sequence.
    public func events() -> AsyncStream<ReplicaEvent> {
        let (stream, continuation) = AsyncStream<ReplicaEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    private func removeObserver(_ id: UUID) {
        observers[id] = nil
    }

    // MARK: Committing

    /// Applies the mutations to the database in one transaction (and to the state once it
    /// committed), then tells the observers.
    func commit(_ mutations: [ReplicaMutation], origin: ReplicaEvent.Origin) throws(ReplicaError) {
        guard !closed else { throw ReplicaError(.closed, "the replica was closed; open it again") }
        guard !mutations.isEmpty else { return }
        let touched = try database.apply(mutations, to: &state)
        noteCommitted(touched, origin: origin)
    }

    /// Tells observers what a committed step changed: the pending counts, and the rows touched.
    func noteCommitted(_ touched: [String: Set<RowKey>?], origin: ReplicaEvent.Origin) {
        let pending = state.pending.count, waiting = state.pending.values.filter(\.isWaiting).count
        if pending != status.pendingCount || waiting != status.waitingConflicts {
            status.pendingCount = pending
            status.waitingConflicts = waiting
            emit(.status(status))
        }
        if !touched.isEmpty { emit(.changed(ReplicaChange(origin: origin, rows: touched))) }
    }

    func emit(_ event: ReplicaEvent) {
        for observer in observers.values { observer.yield(event) }
    }

    func setStatus(_ change: (inout SyncStatus) -> Void) {
        var next = status
        change(&next)
        guard next != status else { return }
        status = next
        emit(.status(status))
    }

    // MARK: Names and keys

    func table(_ name: String) throws(ReplicaError) -> ReplicaState.Table {
        guard !closed else { throw ReplicaError(.closed, "the replica was closed; open it again") }
        guard let table = state.tables[name] else {
            throw ReplicaError(.unknownName, "the replica does not keep a table '\(name)'; it keeps \(state.order.joined(separator: ", "))")
        }
        return table
    }

    /// The table's definition, fields and key (the rows are in the database).
    func shape(_ name: String) throws(ReplicaError) -> ReplicaState.Table {
        try table(name)
    }

    /// What the app sees of one row now.
    func visibleRow(_ table: String, _ key: RowKey) throws(ReplicaError) -> [ODataValue]? {
        guard let stored = state.tables[table], stored.isDownloaded else { return nil }
        return try database.row(of: stored, key: key)
    }

    /// Key values in key order, converted to the key fields' types.
    func key(_ values: DataTableValues, of table: ReplicaState.Table) throws(ReplicaError) -> RowKey {
        guard table.isDownloaded else {
            throw ReplicaError(.invalidChange, "\(table.definition.name) has not been downloaded yet; sync once first")
        }
        var key: RowKey = []
        for position in table.keyPositions {
            let field = table.fields[position]
            guard let value = values[field.name] else {
                throw ReplicaError(.invalidChange, "the key of \(table.definition.name) needs \(field.name)")
            }
            key.append(value.converted(to: field.type) ?? value)
        }
        return key
    }

    func conflict(of change: PendingChange, outcome: ReplicaConflict.Outcome) -> ReplicaConflict {
        ReplicaConflict(id: change.id, table: change.change.table, key: change.change.key, kind: change.change.kind,
                        localValues: change.change.values, serverRow: change.conflict?.values, outcome: outcome)
    }
}

/// A total order of key values, the same everywhere: numbers by value, anything else by its text.
enum KeyOrder {
    static func ascending(_ lhs: [ODataValue], _ rhs: [ODataValue]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            if let a = left.integerValue, let b = right.integerValue {
                if a != b { return a < b }
                continue
            }
            let a = String(describing: left), b = String(describing: right)
            if a != b { return a < b }
        }
        return lhs.count < rhs.count
    }
}
