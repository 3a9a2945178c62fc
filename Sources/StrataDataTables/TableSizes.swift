import Synchronization

/// How many rows each table of a service has, up to a cap, remembered for a minute: the cross-join
/// check of `$sql` (``CrossJoinGuard``) counts them, per loaded service (``DataTableState``).
final class TableSizes: Sendable {
    let counts = Mutex<[String: (rows: Int, cap: Int, at: ContinuousClock.Instant)]>([:])
    static let maximumAge: Duration = .seconds(60)
}
