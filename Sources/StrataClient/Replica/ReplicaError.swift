/// What went wrong with a ``Replica``: its files, a change the app asked for, or a sync.
public struct ReplicaError: Error, Sendable, CustomStringConvertible {
    /// What failed, so that callers can react to each (retry a ``Kind/sync`` later, for example).
    public enum Kind: Sendable, Hashable {
        /// The replica's directory cannot be read or written (permissions, a full disk).
        case storage
        /// The replica's database (or an earlier version's snapshot) does not read back, or a file
        /// in its directory is not one of its own; the message names the file. Delete the
        /// directory and open again to download anew.
        case damaged
        /// Another process has the replica open.
        case inUse
        /// The table is not one the replica keeps, or a field is not one of its fields.
        case unknownName
        /// A value does not fit its field, a key is missing, or the row does not exist locally.
        case invalidChange
        /// Talking to the server failed; ``ReplicaError/underlying`` is the ``StrataError``
        /// (offline, signed out, refused). Local reads and writes go on working.
        case sync
        /// The replica was closed.
        case closed
        /// A query (``Replica/query(_:_:)``) is not one statement that only reads the replicated
        /// tables, or its parameters do not match; the message says which.
        case invalidQuery
    }

    /// What failed.
    public var kind: Kind
    /// What happened and what to do.
    public var message: String
    /// For ``Kind/sync``: the client's error.
    public var underlying: StrataError?

    /// An error of `kind`; the replica makes these.
    public init(_ kind: Kind, _ message: String, underlying: StrataError? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }
}
