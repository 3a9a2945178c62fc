import StrataCore

/// What a ``Replica`` reports to its observers (``Replica/events()``).
public enum ReplicaEvent: Sendable, Hashable {
    /// Rows changed as the app sees them.
    case changed(ReplicaChange)
    /// A conflict was met and settled (or left waiting) as the table's policy says.
    case conflict(ReplicaConflict)
    /// The sync status changed.
    case status(SyncStatus)

    /// Where a change came from.
    public enum Origin: String, Sendable, Hashable {
        /// An edit made through this replica.
        case local
        /// The answer to a push: keys the server gave, rows as stored, conflicts.
        case push
        /// A download or a delta.
        case pull
        /// The live change stream.
        case live
    }
}

/// Rows that changed as the app sees them, and why.
public struct ReplicaChange: Sendable, Hashable {
    /// Where the change came from.
    public var origin: ReplicaEvent.Origin
    /// Per table, the keys (in key-field order) of the rows that changed — inserted, updated,
    /// deleted or rekeyed; nil for a table that changed as a whole (downloaded again).
    public var rows: [String: Set<[ODataValue]>?]

    /// A change; the replica makes these.
    public init(origin: ReplicaEvent.Origin, rows: [String: Set<[ODataValue]>?]) {
        self.origin = origin
        self.rows = rows
    }

    /// The tables with changed rows.
    public var tables: Set<String> { Set(rows.keys) }
}

/// A local change that met a row changed on the server since it was read.
public struct ReplicaConflict: Sendable, Hashable, Identifiable {
    /// How the conflict was settled.
    public enum Outcome: Sendable, Hashable {
        /// The server's row was kept; ``ReplicaConflict/localValues`` were dropped.
        case serverKept
        /// The local change is sent again over the server's row.
        case localResent
        /// Fields changed only locally are sent again; these fields, changed on both sides, keep the server's values.
        case merged(serverKept: Set<String>)
        /// Waiting for ``Replica/resolve(_:_:)``.
        case waiting
    }

    /// Identifies the local change (for ``Replica/resolve(_:_:)``).
    public var id: UInt64
    /// The table of the row.
    public var table: String
    /// The row's key.
    public var key: DataTableValues
    /// What the local change did.
    public var kind: DataTableChange.Kind
    /// The local change's new values (empty for a delete).
    public var localValues: DataTableValues
    /// The server's row when the conflict was found; nil when the server deleted it.
    public var serverRow: DataTableValues?
    /// How it was settled.
    public var outcome: Outcome
}

/// How the app settles a waiting conflict.
public enum ConflictResolution: Sendable, Hashable {
    /// Drop the local change and keep the server's row.
    case keepServer
    /// Send the local change again over the server's row (a row the server deleted is inserted again).
    case keepLocal
    /// Send these values instead.
    case use(DataTableValues)
}
