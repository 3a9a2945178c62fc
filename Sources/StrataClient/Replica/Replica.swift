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
/// - Reads are local: ``rows(_:)`` and ``row(_:key:)`` show the server's rows with this device's
///   unsent changes applied.
/// - Writes apply at once and are on disk before the call returns (``insert(into:_:)``,
///   ``update(_:key:_:)``, ``delete(from:key:)``).
/// - ``sync()`` pushes the outbox as one `$changes` request under an idempotency key — written to
///   disk before it is sent, so a push cut off at any point is sent again with the same key and
///   applied once — then pulls each table's delta (the whole table the first time, or after a
///   `410`), keeping unsent changes on top.
/// - ``startLive()`` follows the server's change stream while online.
/// - The directory holds a snapshot and a checksummed journal, each call's record flushed before it
///   returns: a crash at any moment leaves the state after the last completed call.
public actor Replica {
    let adapter: RemoteDataAdapter
    let files: ReplicaFiles
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

    /// The journal is folded into a new snapshot when it grows past this many bytes.
    static let compactionThreshold = 4 << 20

    private init(adapter: RemoteDataAdapter, files: ReplicaFiles, state: ReplicaState) {
        self.adapter = adapter
        self.files = files
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
    ///   ``ReplicaError/Kind/damaged`` when its snapshot does not read back.
    public static func open(at directory: URL, adapter: RemoteDataAdapter, tables: [ReplicaTable]) async throws(ReplicaError) -> Replica {
        let names = tables.map(\.name)
        guard Set(names).count == names.count, !names.isEmpty else {
            throw ReplicaError(.invalidChange, "name each table once, and at least one: \(names)")
        }
        let files = try ReplicaFiles(directory: directory)
        let contents = try files.read()
        var state = ReplicaState(definition: tables)
        do {
            // The snapshot and the journal after it, under the definitions they were written with.
            if let snapshot = contents.snapshot { state = try ReplicaSnapshot.read(snapshot) }
            for record in contents.records {
                let json = try JSONValue.parse(record)
                guard case .array(let items) = json else { throw DataTableFormatError("a journal record is not a list") }
                for item in items { state.apply(try ReplicaMutation.read(item, state: state)) }
            }
        } catch let error as DataTableFormatError {
            throw ReplicaError(.damaged, "the replica in \(directory.path) does not read back (\(error.message)); delete the directory to download it again")
        } catch {
            throw ReplicaError(.damaged, "the replica in \(directory.path) does not read back (\(error)); delete the directory to download it again")
        }
        let changed = try state.reconcile(with: tables)
        let replica = Replica(adapter: adapter, files: files, state: state)
        // A new snapshot whenever the journal had records or the tables changed: every record after
        // a snapshot is written under the definitions it names.
        if contents.snapshot == nil || changed || !contents.records.isEmpty { try await replica.compact() }
        return replica
    }

    /// Stops the live stream and releases the directory; later calls throw ``ReplicaError/Kind/closed``.
    public func close() {
        closed = true
        live?.cancel()
        live = nil
        for observer in observers.values { observer.finish() }
        observers = [:]
        files.release()
    }

    // MARK: Reading

    /// The rows of a table as the app sees them, in key order.
    public func rows(_ table: String) throws(ReplicaError) -> [ReplicaRow] {
        let stored = try self.table(table)
        let pendingKeys = Set(state.pending.values.filter { $0.change.table == table }.map { stored.key(of: $0.change) })
        return stored.visible.sorted { KeyOrder.ascending($0.key, $1.key) }.map { key, values in
            ReplicaRow(fields: stored.fields, values: values, hasPendingChanges: pendingKeys.contains(key), id: key)
        }
    }

    /// One row by its key values; nil when the replica has no such row.
    public func row(_ table: String, key: DataTableValues) throws(ReplicaError) -> ReplicaRow? {
        let stored = try self.table(table)
        let rowKey = try self.key(key, of: stored)
        guard let values = stored.visible[rowKey] else { return nil }
        return ReplicaRow(fields: stored.fields, values: values, hasPendingChanges: !state.pendingChanges(of: table, key: rowKey).isEmpty, id: rowKey)
    }

    /// Rows by key (in key-field order); nil for a key the replica has no row for (any more).
    public func rows(_ table: String, keys: some Collection<[ODataValue]>) throws(ReplicaError) -> [[ODataValue]: ReplicaRow?] {
        let stored = try self.table(table)
        var rows: [[ODataValue]: ReplicaRow?] = [:]
        for key in keys {
            rows[key] = .some(stored.visible[key].map {
                ReplicaRow(fields: stored.fields, values: $0, hasPendingChanges: !state.pendingChanges(of: table, key: key).isEmpty, id: key)
            })
        }
        return rows
    }

    /// How many rows a table has as the app sees them.
    public func count(_ table: String) throws(ReplicaError) -> Int {
        try self.table(table).visible.count
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

    /// Writes the mutations as one journal record, then applies them and tells the observers.
    func commit(_ mutations: [ReplicaMutation], origin: ReplicaEvent.Origin) throws(ReplicaError) {
        guard !closed else { throw ReplicaError(.closed, "the replica was closed; open it again") }
        guard !mutations.isEmpty else { return }
        var writer = JSONWriter(capacity: 1024)
        writer.beginArray()
        for mutation in mutations { mutation.write(to: &writer, state: state) }
        writer.endArray()
        try files.append(writer.bytes)
        var touched: [String: Set<RowKey>?] = [:]
        for mutation in mutations {
            for (table, keys) in state.apply(mutation) {
                switch (touched[table], keys) {
                case (.some(.none), _): break
                case (_, nil): touched[table] = .some(nil)
                case (let earlier, let keys?): touched[table] = .some((earlier.flatMap { $0 } ?? []).union(keys))
                }
            }
        }
        let pending = state.pending.count, waiting = state.pending.values.filter(\.isWaiting).count
        if pending != status.pendingCount || waiting != status.waitingConflicts {
            status.pendingCount = pending
            status.waitingConflicts = waiting
            emit(.status(status))
        }
        if !touched.isEmpty { emit(.changed(ReplicaChange(origin: origin, rows: touched))) }
    }

    /// Folds the journal into a new snapshot.
    func compact() throws(ReplicaError) {
        try files.compact(ReplicaSnapshot.write(state))
    }

    func compactIfLarge() throws(ReplicaError) {
        if files.journalSize > Self.compactionThreshold { try compact() }
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

    /// The table's definition, fields and key without its rows: safe to hold while the state
    /// changes (a whole ``table(_:)`` value would share the row dictionaries' storage, and the
    /// state's next write to them would copy every row).
    func shape(_ name: String) throws(ReplicaError) -> ReplicaState.Table {
        var shape = try table(name)
        shape.server = [:]
        shape.visible = [:]
        return shape
    }

    /// What the app sees of one row now.
    func visibleRow(_ table: String, _ key: RowKey) -> [ODataValue]? {
        state.tables[table]?.visible[key]
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
