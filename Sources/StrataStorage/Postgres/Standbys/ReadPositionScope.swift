import StrataCore
import Synchronization

/// What one request knows of the log position its caller has seen, while it runs.
///
/// The server sets one per request when it reads from standbys (``current``). It starts at the
/// position the caller sent (`Strata-Position`) and only grows: every statement batch on the
/// primary or a standby records a position at or past what it saw or wrote, so a later read of the
/// same request (a `$batch` part, the next chunk) never sees older data than an earlier one, and the
/// response carries the highest. Reads of a request that may change data, and reads outside any
/// request (the server's own work), have no scope or may not use standbys: they read the primary.
package final class ReadPositionScope: Sendable {
    private let highest: Mutex<ReadPosition?>
    /// Whether this request's reads may go to a standby: GET and HEAD requests and `$sql` queries
    /// (a POST that can only read), so that what a write decides from (an ETag check, a key's
    /// existence) is always read on the primary.
    package let mayReadStandbys: Bool

    package init(caller: ReadPosition?, mayReadStandbys: Bool) {
        highest = Mutex(caller)
        self.mayReadStandbys = mayReadStandbys
    }

    /// The highest position seen so far: a standby must have replayed this far to serve the next read.
    package var position: ReadPosition? { highest.withLock { $0 } }

    /// Records a position this request saw or wrote.
    package func record(_ position: ReadPosition) {
        highest.withLock { if $0 == nil || $0! < position { $0 = position } }
    }

    @TaskLocal package static var current: ReadPositionScope?
}
