import PostgresNIO
import StrataCore
import StrataSQL
import Synchronization

extension PostgresDatabase {
    /// How long a held snapshot lives without a statement timeout (with one, it lives as long as one
    /// statement may run). Also PostgreSQL's default `max_standby_streaming_delay`: a standby cancels a
    /// snapshot older than that only once replay has waited for it that long.
    static let longestHold: Duration = .seconds(30)

    /// On a server with standbys, a request's snapshot for the reads its streamed body makes
    /// (``HeldSnapshot``): on a standby that has replayed what the request has seen so far when it
    /// may read standbys, else on the primary. Its position goes into the request's scope, before
    /// the response's head is written.
    func holdSnapshot() async throws -> HeldSnapshot? {
        guard let standbys, let scope = ReadPositionScope.current else { return nil }
        let owner = ObjectIdentifier(self)
        let deadline = ContinuousClock.now + (StatementLimits.current.timeout ?? Self.longestHold)
        if scope.mayReadStandbys, let (held, position) = try await standbys.hold(after: scope.position, owner: owner, deadline: deadline) {
            scope.record(position)
            return held
        }
        let (held, position) = try await openHeld(owner: owner, deadline: deadline)
        scope.record(position)
        return held
    }

    /// The primary's insert position, asked on the control connection (never waiting for the pool).
    func currentPosition() async throws -> ReadPosition? {
        guard standbys != nil, let control = sessions.control else { return nil }
        guard let text = try await control.firstRow("SELECT pg_current_wal_insert_lsn()::text")?.first, let text,
              let position = ReadPosition(text) else {
            throw StorageError.unavailable("PostgreSQL answered no log position")
        }
        return position
    }

    func awaitStandby(after position: ReadPosition, within limit: Duration) async -> Bool {
        await standbys?.awaitServing(after: position, within: limit) ?? false
    }

    /// Opens a read-only REPEATABLE READ transaction on a connection of this database (counted as
    /// a scan), reads its position — after its snapshot was taken, so at or past it — and keeps the
    /// connection, running the snapshot's reads one at a time, until the snapshot closes.
    func openHeld(owner: ObjectIdentifier, deadline: ContinuousClock.Instant) async throws -> (HeldSnapshot, ReadPosition) {
        let held = HeldSnapshot(owner: owner, deadline: deadline)
        let logger = self.logger
        // The connection is kept by a task of its own: the response's body, which reads in the
        // snapshot, is written after the request's handler (which opened it) has returned.
        let position: ReadPosition = try await withCheckedThrowingContinuation { continuation in
            let opening = Mutex<CheckedContinuation<ReadPosition, any Error>?>(continuation)
            let answer: @Sendable (Result<ReadPosition, any Error>) -> Void = { result in
                opening.withLock { pending in
                    pending?.resume(with: result)
                    pending = nil
                }
            }
            let limits = StatementLimits.current
            Task {
                do {
                    // One of the caller's scans for as long as it is held (``ScanAdmission``): a caller
                    // cannot hold more connections by streaming than by querying.
                    try await Self.admitted(limits) { try await self.keep(held, answer) }
                } catch {
                    logger.debug("A held snapshot ended with an error", metadata: ["error": "\(String(reflecting: error))"])
                    answer(.failure(error))
                }
                held.close()
            }
        }
        // Ends it at its deadline even while its response waits for a slow client.
        Task { [weak held] in
            try? await Task.sleep(until: deadline)
            held?.close()
        }
        return (held, position)
    }

    /// The held connection's life: the snapshot begins, its position is answered, its reads run,
    /// and it commits once the snapshot is closed.
    private func keep(_ held: HeldSnapshot, _ answer: @escaping @Sendable (Result<ReadPosition, any Error>) -> Void) async throws {
        let (role, dialect) = (self.role, self.dialect)
        try await plainRead(scanning: true) { connection in
            guard let session = connection as? PostgresSession else { throw StorageError.failed("not a PostgreSQL connection") }
            try await session.execute(SQLStatement(Self.snapshotBegin, dialect: dialect).oneRow())
            do {
                answer(.success(try await session.position(role)))
                while let job = await held.next() { await job(session) }
                try await session.execute(SQLStatement("COMMIT", dialect: dialect).oneRow())
            } catch {
                try? await session.execute(SQLStatement("ROLLBACK", dialect: dialect).oneRow())
                throw error
            }
        }
    }

    private static func admitted(_ limits: StatementLimits, _ work: () async throws -> Void) async throws {
        guard let admission = limits.admission, let caller = limits.caller else { return try await work() }
        try await admission.run(for: caller(), work)
    }
}
