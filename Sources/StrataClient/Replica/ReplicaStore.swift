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
/// Queries update when the replica changes — a local edit, a sync, a live event — with only the
/// changed rows read again; a pulled transaction is one update.
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
    public func query(_ table: String, orderBy: String? = nil, descending: Bool = false,
                      where predicate: @escaping @Sendable (ReplicaRow) -> Bool = { _ in true }) -> ReplicaQuery {
        let query = ReplicaQuery(table: table, order: ReplicaQuery.Order(field: orderBy, descending: descending), predicate: predicate)
        queries[ObjectIdentifier(query)] = WeakQuery(query: query)
        Task { await query.reload(from: replica) }
        return query
    }

    private func handle(_ event: ReplicaEvent) async {
        switch event {
        case .status(let next):
            status = next
        case .conflict(let conflict):
            lastConflict = conflict
        case .changed(let change):
            queries = queries.filter { $0.value.query != nil }
            for entry in queries.values {
                guard let query = entry.query, let keys = change.rows[query.table] else { continue }
                if let keys {
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

    init(table: String, order: Order, predicate: @escaping @Sendable (ReplicaRow) -> Bool) {
        self.table = table
        self.order = order
        self.predicate = predicate
    }

    func reload(from replica: Replica) async {
        do {
            rows = try await replica.rows(table).filter(predicate).sorted(by: order.ascending)
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
