/// What bounds the statements run for the work at hand: how long each may take, what stops them
/// early, and whose share of scans they count against.
///
/// The server sets it for every request (see `StrataResponder` and `ODataEndpoint`); it is a
/// task-local value so that it reaches the storage layer through every operation unchanged, and
/// the storage layer enforces it inside the database: ``StatementWatch`` interrupts a SQLite
/// statement at its deadline or when a signal fires; PostgreSQL runs each statement under the
/// session's `statement_timeout` and is sent `pg_cancel_backend` when a signal fires. Work that
/// sets nothing (migrations, provisioning, the command line) runs without a time limit.
package struct StatementLimits: Sendable {
    /// The longest one statement may run; nil for no limit.
    package var timeout: Duration?
    /// The request's connection: when its client hangs up (its signal in ``ConnectionSignals``
    /// fires), the request's running statements stop. Looked up only by statements that may run long.
    var connection: ObjectIdentifier?
    /// Fired when the server stops waiting for requests to finish at shutdown.
    var shutdown: InterruptSignal?
    /// Who the work is for (an account, or a client address), and how many scans each caller may run
    /// at once; without either, scans are not counted per caller. Worked out only when a scan asks:
    /// most requests are key lookups, which never need it.
    package var caller: (@Sendable () -> String)?
    var admission: ScanAdmission?
    /// The most bytes of values one query may return (``SQLRows/bytes(of:)``); past it the query
    /// stops with ``StorageError/resultTooLarge(_:)``, having held no more. Set where rows are
    /// collected whole before they are written (`$sql`); nil elsewhere.
    package var maxResultBytes: Int?

    package init(timeout: Duration? = nil, connection: ObjectIdentifier? = nil, shutdown: InterruptSignal? = nil, caller: (@Sendable () -> String)? = nil, admission: ScanAdmission? = nil, maxResultBytes: Int? = nil) {
        self.timeout = timeout
        self.connection = connection
        self.shutdown = shutdown
        self.caller = caller
        self.admission = admission
        self.maxResultBytes = maxResultBytes
    }

    @TaskLocal package static var current = StatementLimits()
}
