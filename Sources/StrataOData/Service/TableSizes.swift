import Synchronization

/// How many rows each table of a service has, up to a cap, remembered for a minute: the cross-join
/// check of `$sql` (DataTables' ``CrossJoinGuard``) counts them, the service keeps them.
package final class TableSizes: Sendable {
    package let counts = Mutex<[String: (rows: Int, cap: Int, at: ContinuousClock.Instant)]>([:])
    package static let maximumAge: Duration = .seconds(60)
}
