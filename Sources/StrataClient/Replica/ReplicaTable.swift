/// A table a ``Replica`` keeps: the table, optionally narrowed by a `$filter` (SAP's "defining
/// query"), and what to do when a local change meets a row that changed on the server.
///
/// ```swift
/// let tables = [
///     ReplicaTable("Person", where: "lastName ne 'Test'", indexes: [["lastName", "firstName"]]),
///     ReplicaTable("Car", conflicts: .ask),
/// ]
/// ```
///
/// The replica keeps the table in its local SQLite database under the same name, keyed by the
/// server's key; `indexes` adds indexes over its fields for the queries the app runs often.
public struct ReplicaTable: Sendable, Hashable {
    /// The table's name (an entity set of the service).
    public var name: String
    /// An OData `$filter` that narrows the rows kept; rows that stop matching it leave the replica.
    public var filter: String?
    /// How conflicts on this table are settled.
    public var conflicts: ConflictPolicy
    /// Indexes of the local table, each over these fields in this order (the key is indexed
    /// already). A name that is not a field is an error when the table is opened or downloaded.
    public var indexes: [[String]]

    /// A table to keep, narrowed by `filter` when given, with its conflict policy and local indexes.
    public init(_ name: String, where filter: String? = nil, conflicts: ConflictPolicy = .mergeFields, indexes: [[String]] = []) {
        self.name = name
        self.filter = filter
        self.conflicts = conflicts
        self.indexes = indexes
    }

    /// A table kept whole or narrowed by a typed filter (`Field<String>("make") == "Ford"`).
    public init(_ name: String, where filter: QueryExpression, conflicts: ConflictPolicy = .mergeFields, indexes: [[String]] = []) {
        self.init(name, where: filter.text, conflicts: conflicts, indexes: indexes)
    }
}

/// How a sync settles a local change whose row changed on the server since it was read (the
/// server answered "conflict" with its current row). Every conflict is reported
/// (``Replica/events``), so no policy drops a local edit silently.
public enum ConflictPolicy: String, Sendable, Hashable, CaseIterable {
    /// The server's row is kept and the local change dropped.
    case serverWins
    /// The local change is sent again over the server's row.
    case clientWins
    /// Fields changed only locally are sent again; fields changed on both sides keep the
    /// server's value. A row deleted on the server waits for the app, as with ``ask``.
    case mergeFields
    /// The change waits, unsent, until the app settles it with ``Replica/resolve(_:_:)``; the
    /// local values stay visible meanwhile.
    case ask
}
