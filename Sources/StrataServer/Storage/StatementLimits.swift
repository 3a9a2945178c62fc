/// What bounds the statements run for the work at hand: how long each may take, what stops them
/// early, and whether they may scan many rows.
///
/// The server sets it for every request (see `StrataResponder` and `ODataEndpoint`); it is a
/// task-local value so that it reaches the storage layer through every operation unchanged, and
/// the storage layer enforces it inside the database: SQLite's progress handler checks the deadline
/// and the stop signals between virtual-machine steps, PostgreSQL runs each statement under the
/// connection's `statement_timeout` and is sent `pg_cancel_backend` when a signal fires. Work that
/// sets nothing (migrations, provisioning, the command line) runs without a time limit.
struct StatementLimits: Sendable {
    /// The longest one statement may run; nil for no limit.
    var timeout: Duration?
    /// Fired when the request is abandoned (its client hung up): its running statements stop.
    var abandonment: InterruptSignal?
    /// Fired when the server stops waiting for requests to finish at shutdown.
    var shutdown: InterruptSignal?
    /// The work reads an unknown number of rows (a collection, `$sql`, `$tables`). Such reads run on
    /// connections of their own, so that however many run and however long, key lookups, writes
    /// and health checks still find a connection.
    var scans = false
    /// Who the work is for (an account, or a client address), and how many scans each caller may run
    /// at once; without either, scans are not counted per caller. Worked out only when a scan asks:
    /// most requests are key lookups, which never need it.
    var caller: (@Sendable () -> String)?
    var admission: ScanAdmission?

    @TaskLocal static var current = StatementLimits()

    /// Runs `stop` with the reason when either signal fires while `body` runs (at once if one has
    /// fired already), and when the task is cancelled (as an abandonment). `stop` may run on any
    /// thread, also after `body` has returned: it must do nothing for a statement that has ended.
    func stoppable<T>(_ stop: @escaping @Sendable (InterruptSignal.Reason) -> Void, _ body: () async throws -> T) async throws -> T {
        let abandonment = self.abandonment, shutdown = self.shutdown
        let abandoned = abandonment?.onFire { stop(.abandoned) }
        let stopped = shutdown?.onFire { stop(.shutdown) }
        defer {
            abandonment?.remove(abandoned)
            shutdown?.remove(stopped)
        }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            stop(.abandoned)
        }
    }

    /// This limit for work that scans.
    func scanning() -> StatementLimits {
        var limits = self
        limits.scans = true
        return limits
    }
}
