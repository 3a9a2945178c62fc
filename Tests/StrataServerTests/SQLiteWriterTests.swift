import Foundation
import StrataCore
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The SQLite writer runs `BEGIN`, single-row statements and `COMMIT` on the caller's thread; these
/// tests cover what that must not lose: waiting for another process's write lock, and checkpointing
/// the write-ahead log that SQLite no longer checkpoints inside commits.
@Suite("SQLite writer")
struct SQLiteWriterTests {
    @Test("A transaction waits for another connection's write lock instead of failing, then commits")
    func waitsForOtherWriter() async throws {
        try await Self.withDatabase { database, path in
            let other = try SQLiteHandle(path: path)
            defer { other.close() }
            try other.execute("BEGIN IMMEDIATE")
            try other.execute("INSERT INTO \"Item\" (\"id\", \"payload\") VALUES (1, 'other')")

            let (started, starting) = AsyncStream<Void>.makeStream()
            let write = Task {
                starting.yield()
                return try await database.transaction { connection in
                    try await connection.execute(SQLStatement("INSERT INTO \"Item\" (\"id\", \"payload\") VALUES (\(bind: .int64(2)), \(bind: .string("ours")))", dialect: .sqlite, touchesOneRow: true))
                    return ContinuousClock.now
                }
            }
            // Once the write has started, the other connection holds the lock a while longer: the
            // write reaches its BEGIN meanwhile and must wait there. (Were it slower still, it would
            // find the lock free: this run would prove less, but not fail falsely.)
            for await _ in started { break }
            try await Task.sleep(for: .milliseconds(300))
            let rowsWhileLocked = try await database.read { try await $0.query("SELECT COUNT(*) FROM \"Item\"") }
            #expect(rowsWhileLocked.rows.first?.first?.integerValue == 0)
            let committed = ContinuousClock.now
            try other.execute("COMMIT")
            let wrote = try await write.value
            #expect(wrote >= committed, "the write ran while the other connection held the lock")

            let rows = try await database.read { try await $0.query("SELECT \"id\" FROM \"Item\" ORDER BY \"id\"") }
            #expect(rows.rows.map { $0[0].integerValue } == [1, 2])
        }
    }

    @Test("The write-ahead log is checkpointed after commits, so it stays near 1,000 pages")
    func checkpointsTheLog() async throws {
        try await Self.withDatabase { database, path in
            // Each commit adds at least two pages (a 4 KB value overflows its leaf page): 3,000
            // commits would leave a log of over 6,000 pages (24 MB) without checkpoints.
            let payload = String(repeating: "x", count: 4096)
            for id in 0..<3_000 {
                try await database.transaction { connection in
                    try await connection.execute(SQLStatement("INSERT INTO \"Item\" (\"id\", \"payload\") VALUES (\(bind: .int64(Int64(id))), \(bind: .string(payload)))", dialect: .sqlite, touchesOneRow: true))
                }
            }
            let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            #expect(walBytes > 0)
            #expect(walBytes < 3_000 * 4096, "the log is \(walBytes) bytes")
            let count = try await database.read { try await $0.query("SELECT COUNT(*) FROM \"Item\"") }
            #expect(count.rows.first?.first?.integerValue == 3_000)
        }
    }

    @Test("A write transaction runs on the database's writer thread from start to commit, across statements on the thread pool; reads do not")
    func writesRunOnTheWriterThread() async throws {
        try await Self.withDatabase { database, _ in
            let places = try await database.transaction { connection in
                let before = database.writerExecutor.isCurrent
                try await connection.execute(SQLStatement("INSERT INTO \"Item\" (\"id\", \"payload\") VALUES (\(bind: .int64(1)), \(bind: .string("one")))", dialect: .sqlite, touchesOneRow: true))
                // Not a single-row statement: it runs on the thread pool, and the body comes back.
                _ = try await connection.query("SELECT COUNT(*) FROM \"Item\"")
                return [before, database.writerExecutor.isCurrent]
            }
            #expect(places == [true, true])
            #expect(!database.writerExecutor.isCurrent)
            let inRead = try await database.read { _ in database.writerExecutor.isCurrent }
            #expect(!inRead)
        }
    }

    @Test("Concurrent transactions take turns on the writer: every one commits, none is lost")
    func concurrentTransactions() async throws {
        try await Self.withDatabase { database, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 0..<200 {
                    group.addTask {
                        try await database.transaction { connection in
                            try await connection.execute(SQLStatement("INSERT INTO \"Item\" (\"id\", \"payload\") VALUES (\(bind: .int64(Int64(id))), \(bind: .string("row \(id)")))", dialect: .sqlite, touchesOneRow: true))
                            let rows = try await connection.query(SQLStatement("SELECT COUNT(*) FROM \"Item\" WHERE \"id\" = \(bind: .int64(Int64(id)))", dialect: .sqlite, touchesOneRow: true))
                            #expect(rows.rows.first?.first?.integerValue == 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let count = try await database.read { try await $0.query("SELECT COUNT(*), SUM(\"id\") FROM \"Item\"") }
            #expect(count.rows.first?.first?.integerValue == 200)
            #expect(count.rows.first?.last?.integerValue == 19_900)  // 0 + 1 + … + 199
        }
    }

    static func withDatabase(_ body: (SQLiteDatabase, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-writer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("items.sqlite").path
        let database = try await SQLiteDatabase.open(path: path, readers: 1, logger: TestDatabases.logger)
        do {
            try await database.transaction { connection in
                try await connection.execute("CREATE TABLE \"Item\" (\"id\" INTEGER PRIMARY KEY, \"payload\" TEXT NOT NULL)")
            }
            try await body(database, path)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
