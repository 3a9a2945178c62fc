import StrataStorage

/// A window's changes as committed transactions, in commit order, and the cursor right after each.
///
/// Changes of one transaction share its id (PostgreSQL's `xid8`, SQLite's counter of Strata's
/// write transactions). On SQLite, positions are commit order and transactions never interleave;
/// another program's writes have no id and are taken as one transaction per run of them. On
/// PostgreSQL, concurrent transactions interleave positions; each is ordered by its highest
/// position, which is commit order wherever two transactions touched the same row (the second
/// waited for the first's row lock and took its positions after the first committed).
struct FeedTransactions {
    struct Transaction {
        var id: Int64?
        var changes: [LoggedChange] = []
        var lastPosition: Int64 = 0
    }

    let list: [Transaction]

    init(_ changes: [LoggedChange]) {
        var list: [Transaction] = []
        var index: [Int64: Int] = [:]
        for change in changes {
            if let id = change.transaction, let at = index[id] {
                list[at].changes.append(change)
                list[at].lastPosition = max(list[at].lastPosition, change.position)
            } else if change.transaction == nil, let last = list.last, last.id == nil, last.lastPosition < change.position {
                list[list.count - 1].changes.append(change)
                list[list.count - 1].lastPosition = change.position
            } else {
                if let id = change.transaction { index[id] = list.count }
                list.append(Transaction(id: change.transaction, changes: [change], lastPosition: change.position))
            }
        }
        self.list = list.sorted { $0.lastPosition < $1.lastPosition }
    }

    /// The cursor after the transaction at `index`: everything up to it delivered, nothing after.
    /// `end` is the window's end, the cursor after the last one.
    ///
    /// SQLite: its last position. PostgreSQL: the window's end snapshot with the later transactions
    /// of the window listed as still running (and `xmin` lowered below them, as a snapshot requires),
    /// so that a reader resuming there gets exactly those.
    func cursor(after index: Int, end: ChangeCursor) -> ChangeCursor {
        guard index < list.count - 1 else { return end }
        switch end {
        case .position:
            return .position(list[index].lastPosition)
        case .snapshot(let snapshot):
            let later = list[(index + 1)...].compactMap(\.id).map { UInt64(bitPattern: $0) }
            let running = Set(snapshot.inProgress).union(later).sorted()
            return .snapshot(PostgresSnapshot(xmin: min(snapshot.xmin, running.first ?? snapshot.xmin), xmax: snapshot.xmax, inProgress: running))
        }
    }
}
