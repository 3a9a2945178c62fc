/// Where a reader of a change log is: everything before it delivered
/// (docs/design/CHANGE-FEED.md §2).
package enum ChangeCursor: Sendable, Hashable {
    /// SQLite: the last position delivered (0 = before any). Positions are commit order there.
    case position(Int64)
    /// PostgreSQL: the snapshot of the last read. A change is after it when its transaction was
    /// invisible to that snapshot.
    case snapshot(PostgresSnapshot)

    /// The cursor of everything before `self` or before `other`. A hub that reads its windows on
    /// standbys and the primary in turn continues from this: a transaction a standby showed
    /// committed a moment before the primary's snapshot did (a commit becomes visible on the primary
    /// only after its record went out to standbys) is not delivered twice.
    package func merged(with other: ChangeCursor) -> ChangeCursor {
        switch (self, other) {
        case (.position(let mine), .position(let theirs)): return .position(max(mine, theirs))
        case (.snapshot(let mine), .snapshot(let theirs)): return .snapshot(mine.union(theirs))
        default: return other
        }
    }
}

/// A PostgreSQL `pg_snapshot`, as its text `xmin:xmax:xip1,xip2` says: every transaction below
/// `xmin` had ended, none at or above `xmax` had started, `inProgress` were running.
package struct PostgresSnapshot: Sendable, Hashable {
    package var xmin: UInt64
    package var xmax: UInt64
    package var inProgress: [UInt64]

    package init(xmin: UInt64, xmax: UInt64, inProgress: [UInt64] = []) {
        self.xmin = xmin
        self.xmax = xmax
        self.inProgress = inProgress
    }

    /// Reads `pg_snapshot`'s text form; nil for anything else.
    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]), xmin <= xmax else { return nil }
        var running: [UInt64] = []
        if !parts[2].isEmpty {
            for item in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
                guard let xid = UInt64(item), xid >= xmin, xid < xmax else { return nil }
                running.append(xid)
            }
        }
        self.init(xmin: xmin, xmax: xmax, inProgress: running.sorted())
    }

    /// The text PostgreSQL reads back as a `pg_snapshot`.
    var text: String {
        "\(xmin):\(xmax):" + inProgress.map(String.init).joined(separator: ",")
    }

    /// The snapshot in which what is visible in either is visible: running are only the
    /// transactions neither sees.
    func union(_ other: PostgresSnapshot) -> PostgresSnapshot {
        let xmax = max(self.xmax, other.xmax)
        let running = Set(inProgress + other.inProgress).filter { !isVisible($0) && !other.isVisible($0) }.sorted()
        return PostgresSnapshot(xmin: running.first ?? xmax, xmax: xmax, inProgress: running)
    }

    /// Whether a transaction's changes are visible in this snapshot (as `pg_visible_in_snapshot`,
    /// for committed transactions).
    func isVisible(_ xid: UInt64) -> Bool {
        xid < xmin || (xid < xmax && !inProgress.contains(xid))
    }
}
