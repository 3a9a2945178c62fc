/// Hears how long each lease waited for a pooled connection, from asking for it to holding it —
/// PostgreSQL's pool, and SQLite's readers, scanners and single writer (where writes queue); the
/// server exposes it at `/metrics` as `strata_db_pool_wait_seconds`, so a pool too small for the
/// load shows as waits before it shows as 503s.
package struct PoolWaitRecorder: Sendable {
    let record: @Sendable (Duration) -> Void

    package init(_ record: @escaping @Sendable (Duration) -> Void) {
        self.record = record
    }

    static let none = PoolWaitRecorder { _ in }
}
