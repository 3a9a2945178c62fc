import Foundation

/// Where a ``Replica`` stands with its server: what it is doing, whether its live stream is up,
/// what waits to be sent, and how the last attempt went.
public struct SyncStatus: Sendable, Hashable {
    /// What the replica is doing now.
    public enum Activity: String, Sendable, Hashable {
        /// Nothing to do, or waiting for the next change.
        case idle
        /// Reading rows or changes from the server.
        case downloading
        /// Sending local changes.
        case uploading
        /// The last attempt could not reach the server (or was refused); local work goes on.
        case offline
    }

    /// What the replica is doing.
    public var activity: Activity = .idle
    /// True while the live change stream is connected.
    public var connected = false
    /// When a sync last completed (local changes sent and the server's changes received).
    public var lastSynced: Date?
    /// Local changes the server has not acknowledged (waiting conflicts included).
    public var pendingCount = 0
    /// Conflicts waiting for the app (``ConflictPolicy/ask``).
    public var waitingConflicts = 0
    /// Why the last attempt failed; nil after a success.
    public var lastError: String?
    /// While a table is downloaded whole (a first sync, or a reload): which, and how far.
    public var download: Download?

    /// A whole table on its way.
    public struct Download: Sendable, Hashable {
        /// The table.
        public var table: String
        /// Bytes received so far.
        public var receivedBytes: Int64
        /// Nil when the server streams the table without announcing its length.
        public var expectedBytes: Int64?
    }

    /// Idle, never synced, nothing pending.
    public init() {}
}
