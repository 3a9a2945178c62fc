import Foundation
import Observation
import StrataCore

/// A ``Replica`` for SwiftUI: observable sync status and live queries, on the main actor.
///
/// ```swift
/// @State var store: ReplicaStore
/// let people = store.query("Person", orderBy: "lastName") { $0["lastName"] != .string("Test") }
/// List(people.rows) { row in Text(row["lastName"]?.stringValue ?? "") }
/// Text(store.status.pendingCount == 0 ? "Synced" : "\(store.status.pendingCount) to send")
/// ```
///
/// Queries update when the replica changes — a local edit, a sync, a live event — and only the
/// queries that read a changed table: a table query reads only the changed rows again, an SQL query
/// (``query(sql:_:)``) runs again when a table it reads changed. A pulled transaction is one update.
///
/// ```swift
/// let fords = store.query("Car", matching: ["make": .string("Ford")], orderBy: "year")   // indexed SQL
/// let owners = store.query(sql: "SELECT p.lastName, c.model FROM Person p JOIN PersonCar pc USING (personID) JOIN Car c USING (carID)")
/// ```
@MainActor
@Observable
public final class ReplicaStore {
    /// The replica underneath: edits and syncs go to it.
    public let replica: Replica
    /// Where the replica stands with its server.
    public private(set) var status: SyncStatus
    /// The last conflict met, for an alert.
    public private(set) var lastConflict: ReplicaConflict?

    @ObservationIgnored private var queries: [ObjectIdentifier: WeakQuery] = [:]
    @ObservationIgnored private var sqlQueries: [ObjectIdentifier: WeakSQLQuery] = [:]
    @ObservationIgnored private var listener: Task<Void, Never>?

    /// A store over an open replica; it follows the replica's events until ``stop()``.
    public init(replica: Replica) async {
        self.replica = replica
        status = await replica.syncStatus
        let events = await replica.events()
        listener = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    /// Stops following the replica (the store's queries stop updating).
    public func stop() {
        listener?.cancel()
        listener = nil
    }

    /// A query whose ``ReplicaQuery/rows`` stay current: the rows of `table` that pass `predicate`,
    /// ordered by `orderBy` (a field, then the key) or by key. Keep a reference while you show it.
    ///
    /// The predicate is Swift, so the first read (and a reload after a download) reads the whole
    /// table from the database to test each row; for a large table prefer
    /// ``query(_:matching:orderBy:descending:limit:)`` or ``query(sql:_:)``, which SQLite answers
    /// from its indexes.
    public func query(_ table: String, orderBy: String? = nil, descending: Bool = false,
                      where predicate: @escaping @Sendable (ReplicaRow) -> Bool = { _ in true }) -> ReplicaQuery {
        let query = ReplicaQuery(table: table, order: ReplicaQuery.Order(field: orderBy, descending: descending), predicate: predicate)
        queries[ObjectIdentifier(query)] = WeakQuery(query: query)
        Task { await query.reload(from: replica) }
        return query
    }

    /// A query whose ``ReplicaQuery/rows`` stay current: the rows of `table` whose fields equal
    /// `matching`, ordered by `orderBy` (then the key) or by key, at most `limit` — one indexed SQL
    /// statement (``Replica/rows(_:matching:orderBy:descending:limit:)``). Keep a reference while you show it.
    public func query(_ table: String, matching: DataTableValues, orderBy: String? = nil, descending: Bool = false,
                      limit: Int? = nil) -> ReplicaQuery {
        let query = ReplicaQuery(table: table, order: ReplicaQuery.Order(field: orderBy, descending: descending),
                                 predicate: { row in ReplicaQuery.row(row, matches: matching) },
                                 fetch: .matching(matching, limit: limit))
        queries[ObjectIdentifier(query)] = WeakQuery(query: query)
        Task { await query.reload(from: replica) }
        return query
    }

    /// An SQL query over the replica's tables (``Replica/query(_:_:)``) whose ``ReplicaSQLQuery/result``
    /// stays current: it runs again when a table it reads changes, and only then. Keep a reference
    /// while you show it.
    public func query(sql: String, _ arguments: [ODataValue] = []) -> ReplicaSQLQuery {
        let query = ReplicaSQLQuery(sql: sql, arguments: arguments)
        sqlQueries[ObjectIdentifier(query)] = WeakSQLQuery(query: query)
        Task { await query.run(on: replica) }
        return query
    }

    private func handle(_ event: ReplicaEvent) async {
        switch event {
        case .status(let next):
            status = next
        case .conflict(let conflict):
            lastConflict = conflict
        case .changed(let change):
            sqlQueries = sqlQueries.filter { $0.value.query != nil }
            for entry in sqlQueries.values {
                guard let query = entry.query, query.reads(change.tables) else { continue }
                await query.run(on: replica)
            }
            queries = queries.filter { $0.value.query != nil }
            for entry in queries.values {
                guard let query = entry.query, let keys = change.rows[query.table] else { continue }
                if let keys, query.patchable {
                    await query.patch(keys, from: replica)
                } else {
                    await query.reload(from: replica)
                }
            }
        }
    }

    private struct WeakQuery {
        weak var query: ReplicaQuery?
    }

    private struct WeakSQLQuery {
        weak var query: ReplicaSQLQuery?
    }
}

/// The rows of one table that pass a predicate, in order, kept current by a ``ReplicaStore``.
@MainActor
@Observable
public final class ReplicaQuery {
    /// The rows, in the query's order.
    public private(set) var rows: [ReplicaRow] = []
    /// Nil once the first read finished; the reason when it failed (an unknown table).
    public private(set) var error: ReplicaError?

    @ObservationIgnored let table: String
    @ObservationIgnored let order: Order
    @ObservationIgnored let predicate: @Sendable (ReplicaRow) -> Bool
    @ObservationIgnored let fetch: Fetch

    /// How the rows are read: the whole table filtered by the predicate, or by SQL.
    enum Fetch {
        case scan
        case matching(DataTableValues, limit: Int?)
    }

    /// Whether a row's fields equal these values (converted to the fields' types), as the SQL of
    /// ``Replica/rows(_:matching:orderBy:descending:limit:)`` compares them.
    nonisolated static func row(_ row: ReplicaRow, matches values: DataTableValues) -> Bool {
        values.allSatisfy { name, value in
            guard let index = row.fields.firstIndex(where: { $0.name == name }) else { return false }
            let stored = row.values[index]
            if value.isNull || stored.isNull { return value.isNull && stored.isNull }
            return value.converted(to: row.fields[index].type) == stored
        }
    }

    /// Whether changed rows can be patched in place: not under a limit, where a change can pull in
    /// a row that was beyond it.
    var patchable: Bool {
        if case .matching(_, .some) = fetch { return false }
        return true
    }

    struct Order {
        var field: String?
        var descending: Bool

        func ascending(_ lhs: ReplicaRow, _ rhs: ReplicaRow) -> Bool {
            if let field, let a = lhs[field], let b = rhs[field], a != b {
                let before = ValueOrder.ascending(a, b)
                return descending ? !before : before
            }
            return KeyOrder.ascending(lhs.id, rhs.id)
        }
    }

    init(table: String, order: Order, predicate: @escaping @Sendable (ReplicaRow) -> Bool, fetch: Fetch = .scan) {
        self.table = table
        self.order = order
        self.predicate = predicate
        self.fetch = fetch
    }

    func reload(from replica: Replica) async {
        do {
            switch fetch {
            case .scan:
                rows = try await replica.rows(table).filter(predicate).sorted(by: order.ascending)
            case .matching(let values, let limit):
                rows = try await replica.rows(table, matching: values, orderBy: order.field, descending: order.descending, limit: limit)
            }
            error = nil
        } catch {
            self.error = error
        }
    }

    /// Reads only the changed rows again and moves them to their places.
    func patch(_ keys: Set<[ODataValue]>, from replica: Replica) async {
        guard let changed = try? await replica.rows(table, keys: keys) else { return await reload(from: replica) }
        var next = rows
        next.removeAll { keys.contains($0.id) }
        for case let row? in changed.values where predicate(row) {
            let index = next.partitioningIndex { !order.ascending($0, row) }
            next.insert(row, at: index)
        }
        rows = next
    }
}

/// A total order of values for sorting rows: numbers by value, text and the rest by their text, nulls first.
enum ValueOrder {
    static func ascending(_ lhs: ODataValue, _ rhs: ODataValue) -> Bool {
        if lhs.isNull != rhs.isNull { return lhs.isNull }
        if let a = lhs.integerValue, let b = rhs.integerValue { return a < b }
        if let a = lhs.doubleValue, let b = rhs.doubleValue { return a < b }
        return String(describing: lhs) < String(describing: rhs)
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, which must be false then true along the array.
    fileprivate func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// An SQL query over a replica's tables, kept current by a ``ReplicaStore``: it runs again when a
/// table it reads changes.
@MainActor
@Observable
public final class ReplicaSQLQuery {
    /// The last result; nil until the first run finished, or when it failed.
    public private(set) var result: ReplicaQueryResult?
    /// Why the last run failed (``ReplicaError/Kind/invalidQuery``); nil after a success.
    public private(set) var error: ReplicaError?
    /// How many times the query ran: once at first, then once per change of a table it reads.
    public private(set) var runs = 0

    @ObservationIgnored let sql: String
    @ObservationIgnored let arguments: [ODataValue]

    init(sql: String, arguments: [ODataValue]) {
        self.sql = sql
        self.arguments = arguments
    }

    /// Whether a change of these tables can change the result (a query that failed runs again at
    /// any change: a table it names may have arrived).
    func reads(_ tables: Set<String>) -> Bool {
        guard let result else { return true }
        return !result.tables.isDisjoint(with: tables)
    }

    func run(on replica: Replica) async {
        runs += 1
        do {
            result = try await replica.query(sql, arguments)
            error = nil
        } catch {
            result = nil
            self.error = error
        }
    }
}
