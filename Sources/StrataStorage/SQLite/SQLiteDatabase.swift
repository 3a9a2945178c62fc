import Foundation
import Logging
import NIOCore
import NIOPosix
import StrataCore
import StrataSQL
import Synchronization

/// A SQLite database file with a pool of reader connections and one writer.
///
/// WAL mode lets readers keep reading while the writer writes. All writes go through the single
/// writer connection, one transaction at a time, so concurrent clients queue inside the server
/// instead of meeting `SQLITE_BUSY`. `synchronous=NORMAL` in WAL mode keeps every acknowledged
/// commit across a crash of the server process (not across power loss before the next checkpoint).
package final class SQLiteDatabase: Database {
    package let dialect = SQLDialect.sqlite
    package let path: String
    private let readers: SQLiteHandlePool
    /// Readers for work that scans (``Database/read(scanning:_:)``), apart from ``readers`` so that
    /// long scans never make key lookups wait for a connection.
    private let scanners: SQLiteHandlePool
    private let writer: SQLiteHandlePool
    /// A connection of its own for ``ping()``, so that a health check never waits for a busy pool.
    private let pinger: Mutex<SQLiteHandle?>
    private let counter: StatementCounter
    private let threadPool: NIOThreadPool
    private let logger: Logger
    /// Where write transactions run (see ``SQLiteWriterExecutor``).
    let writerExecutor = SQLiteWriterExecutor()
    /// Whether the file's changes are captured (set by ``ChangeCapture`` when it applies a model):
    /// then each write transaction counts itself in `_strata_feed` (docs/design/CHANGE-FEED.md §2).
    /// A flag, not a query per write.
    private let countsTransactions = Atomic<Bool>(false)

    var tracksChanges: Bool {
        get { countsTransactions.load(ordering: .acquiring) }
        set { countsTransactions.store(newValue, ordering: .releasing) }
    }

    /// The threads SQLite statements run on when they are not cheap enough for the caller's thread:
    /// as many as the connections that may run such statements at once (readers, scanners and the
    /// writer of a few databases), since a thread waiting in a long scan must not hold up the rest.
    static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 16)
        pool.start()
        return pool
    }()

    /// Opens the file with pools of up to `readers` connections for key lookups and `scanners` for
    /// scans (at least one each) besides the writer. The writer, one reader and the health check's
    /// connection open now; the rest when concurrent work first needs them (``SQLiteHandlePool``).
    static func open(path: String, readers: Int = 4, scanners: Int = 4, counter: StatementCounter = .none,
                     poolWaits: PoolWaitRecorder = .none, logger: Logger) async throws -> SQLiteDatabase {
        let threadPool = threads
        // The writer opens first so that WAL mode is set before readers open the file.
        let writer = try await threadPool.runIfActive { try openConnection(path: path) }
        var opened: [SQLiteHandle] = []
        do {
            for _ in 0..<2 {
                opened.append(try await threadPool.runIfActive { try openConnection(path: path) })
            }
        } catch {
            writer.close()
            for handle in opened { handle.close() }
            throw error
        }
        return SQLiteDatabase(path: path, writer: writer, reader: opened[0], readers: max(1, readers), scanners: max(1, scanners),
                              pinger: opened[1], counter: counter, poolWaits: poolWaits, threadPool: threadPool, logger: logger)
    }

    private init(path: String, writer: SQLiteHandle, reader: SQLiteHandle, readers: Int, scanners: Int, pinger: SQLiteHandle,
                 counter: StatementCounter, poolWaits: PoolWaitRecorder, threadPool: NIOThreadPool, logger: Logger) {
        self.path = path
        self.pinger = Mutex(pinger)
        let open: @Sendable () async throws -> SQLiteHandle = { try await threadPool.runIfActive { try Self.openConnection(path: path) } }
        self.writer = SQLiteHandlePool([writer], capacity: 1, waits: poolWaits, open: open)
        self.readers = SQLiteHandlePool([reader], capacity: readers, waits: poolWaits, open: open)
        self.scanners = SQLiteHandlePool([], capacity: scanners, waits: poolWaits, open: open)
        self.counter = counter
        self.threadPool = threadPool
        self.logger = logger
    }

    /// How many connections the file has open now (writer, readers, scanners, health check).
    var openConnections: Int { writer.openedCount + readers.openedCount + scanners.openedCount + 1 }

    /// How many transactions are queued for the writer.
    var queuedWrites: Int { writer.waitingCount }

    private static func openConnection(path: String) throws -> SQLiteHandle {
        let handle = try SQLiteHandle(path: path)
        do {
            for pragma: SQL in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"] {
                try handle.execute(pragma)
            }
        } catch {
            handle.close()
            throw error
        }
        return handle
    }

    package func read<T: Sendable>(scanning: Bool, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await (scanning ? scanners : readers).with { handle in
            try await body(SQLiteSession(handle: handle, counter: counter, threadPool: threadPool))
        }
    }

    /// A deferred transaction on a reader: SQLite's WAL snapshot is taken at its first read and
    /// kept until `COMMIT`, whatever the writer commits meanwhile.
    package func snapshot<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await readers.with { handle in
            try handle.execute("BEGIN")
            do {
                let result = try await body(SQLiteSession(handle: handle, counter: counter, threadPool: threadPool))
                try handle.execute("COMMIT")
                return result
            } catch {
                if handle.inTransaction { try? handle.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// `BEGIN`, `COMMIT` and `ROLLBACK` run on the caller's thread: with WAL and `synchronous=NORMAL`
    /// a commit appends to the log without syncing, and the checkpoint SQLite would otherwise run
    /// inside it runs on the thread pool afterwards (see ``SQLiteHandle/checkpointDue``). Only a
    /// `BEGIN` that finds another process holding the write lock waits for it, on the thread pool.
    /// Handing each of these to another thread cost more than the write itself and, since writes
    /// queue for the one writer, capped writes per second at one over three thread hand-offs.
    ///
    /// The whole transaction, from waiting for the writer to the commit, runs on the database's
    /// writer thread (``SQLiteWriterExecutor``), so that each hand-over of the writer connection
    /// goes straight to the next write.
    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(writerExecutor) {
            try await writeTransaction(body)
        }
    }

    private func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await writer.with { handle in
            let session = SQLiteSession(handle: handle, counter: counter, threadPool: threadPool)
            counter.increment()
            if try !handle.beginImmediateWithoutWaiting() {
                try await threadPool.runIfActive { try handle.execute("BEGIN IMMEDIATE") }
            }
            let result: T
            do {
                let counting = tracksChanges && countTransaction(handle, ChangeCaptureSQL.sqliteBeginTransaction)
                result = try await body(session)
                if counting { _ = countTransaction(handle, ChangeCaptureSQL.sqliteEndTransaction) }
                counter.increment()
                try handle.execute("COMMIT")
            } catch {
                do {
                    counter.increment()
                    // An interrupted write has rolled its transaction back already.
                    if handle.inTransaction { try handle.execute("ROLLBACK") }
                } catch {
                    logger.error("SQLite rollback failed", metadata: ["path": .string(path), "error": "\(error)"])
                }
                throw error
            }
            if handle.checkpointDue {
                do {
                    try await threadPool.runIfActive { try handle.checkpoint() }
                } catch {
                    // The commit stands; the next commit tries the checkpoint again.
                    logger.warning("SQLite checkpoint failed", metadata: ["path": .string(path), "error": "\(error)"])
                }
            }
            return result
        }
    }

    /// Runs one of the transaction counter's statements; a file whose log another process dropped
    /// stops counting instead of failing every write.
    private func countTransaction(_ handle: SQLiteHandle, _ statement: SQL) -> Bool {
        do {
            try handle.execute(statement)
            return true
        } catch {
            logger.warning("SQLite change log counter missing; no longer counting", metadata: ["path": .string(path), "error": "\(error)"])
            tracksChanges = false
            return false
        }
    }

    /// Reads the file's schema on a connection kept for this, on the caller's thread: the header and
    /// first page, always cached, so it answers at once however busy the pools are.
    package func ping() async throws {
        try pinger.withLock { handle in
            guard let handle else { throw StorageError.unavailable("the SQLite database \(path) is closed") }
            _ = try handle.query("SELECT count(*) FROM sqlite_schema", types: [.int64])
        }
    }

    package func close() async {
        let pinger = self.pinger.withLock { handle in
            defer { handle = nil }
            return handle
        }
        let handles = readers.drain() + scanners.drain() + writer.drain() + (pinger.map { [$0] } ?? [])
        _ = try? await threadPool.runIfActive {
            for handle in handles { handle.close() }
        }
    }
}

/// One borrowed SQLite connection.
///
/// Statements that touch one row by key (``SQLStatement/touchesOneRow``) run on the caller's thread:
/// they read and write a few pages that are almost always cached, faster than handing them to
/// another thread and back. Everything else (scans, statements over many rows, deletes that may
/// cascade) runs on the NIO thread pool so that a long statement never holds one of the few threads
/// Swift's cooperative pool has.
struct SQLiteSession: DatabaseConnection {
    let handle: SQLiteHandle
    let counter: StatementCounter
    let threadPool: NIOThreadPool
    var dialect: SQLDialect { .sqlite }

    func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows {
        counter.increment()
        if statement.touchesOneRow { return try handle.query(statement, types: types) }
        // Read here: the task-local does not cross to the thread pool.
        let (handle, maxBytes) = (handle, StatementLimits.current.maxResultBytes)
        return try await stoppable { try await threadPool.runIfActive { try handle.query(statement, types: types, maxBytes: maxBytes) } }
    }

    func execute(_ statement: SQLStatement) async throws {
        counter.increment()
        if statement.touchesOneRow { return try handle.execute(statement) }
        let handle = handle
        try await stoppable { try await threadPool.runIfActive { try handle.execute(statement) } }
    }

    /// Runs a statement that may take long so that it stops at the statement timeout, when the
    /// client hangs up and when the server shuts down (``StatementLimits``, ``StatementWatch``). A
    /// statement that touches one row by key needs none of this: it is done in microseconds.
    private func stoppable<T>(_ run: () async throws -> T) async throws -> T {
        let handle = handle
        let statement = handle.arm()
        return try await StatementWatch.shared.run(StatementLimits.current, timesOut: true, stop: { handle.requestStop(statement, $0) }, run)
    }
}

