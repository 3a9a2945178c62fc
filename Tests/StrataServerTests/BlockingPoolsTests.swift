import Foundation
import NIOConcurrencyHelpers
import NIOPosix
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataSQL
import Testing

/// Slow blocking work (a blob's fsync on a busy disk, bcrypt) must not hold up SQLite's queries.
@Suite("Blocking pools")
struct BlockingPoolsTests {
    @Test("With every blob-file and password thread busy, SQLite still reads and writes", .timeLimit(.minutes(2)))
    func slowWorkDoesNotStallQueries() async throws {
        let gate = Gate()
        var occupying: [Task<Void, any Error>] = []
        for (pool, threads) in [(BlockingPools.files, BlockingPools.fileThreads), (BlockingPools.passwords, BlockingPools.passwordThreads)] {
            for _ in 0..<threads {
                occupying.append(Task { try await pool.runIfActive { gate.wait() } })
            }
        }
        // Every thread of both pools is taken once each has reported in.
        while gate.waiting < BlockingPools.fileThreads + BlockingPools.passwordThreads {
            try await Task.sleep(for: .milliseconds(10))
        }
        // A fallback, so that a regression fails this test instead of hanging the whole run.
        let fallback = Task {
            try await Task.sleep(for: .seconds(60))
            gate.open()
        }

        var answered = false
        try await SQLiteWriterTests.withDatabase { database, _ in
            try await database.transaction { connection in
                try await connection.execute("INSERT INTO \"Item\" (\"id\", \"payload\") VALUES (1, 'x')")
            }
            let rows = try await database.read { connection in
                try await connection.query("SELECT \"payload\" FROM \"Item\"")
            }
            answered = rows.rows.count == 1
        }
        #expect(!gate.isOpen, "SQLite waited for the blocked pools")
        #expect(answered)
        gate.open()
        fallback.cancel()
        for task in occupying { try await task.value }
    }
}

/// Blocks the threads that wait on it until it opens.
private final class Gate: Sendable {
    private let state = NIOLockedValueBox((waiting: 0, open: false))
    private let semaphore = DispatchSemaphore(value: 0)

    var waiting: Int { state.withLockedValue { $0.waiting } }
    var isOpen: Bool { state.withLockedValue { $0.open } }

    func wait() {
        state.withLockedValue { $0.waiting += 1 }
        semaphore.wait()
    }

    /// Lets every waiter through; only the first call does anything.
    func open() {
        let waiters = state.withLockedValue { state -> Int in
            defer { state.open = true }
            return state.open ? 0 : state.waiting
        }
        for _ in 0..<waiters { semaphore.signal() }
    }
}
