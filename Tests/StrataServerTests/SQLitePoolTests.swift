import Foundation
import StrataCore
import StrataSQL
@testable import StrataStorage
import Synchronization
import Testing

/// SQLite connections open when concurrent work first needs them, up to each pool's bound, and a
/// connection that cannot be opened fails its caller without leaving anyone waiting.
@Suite("SQLite connection pools")
struct SQLitePoolTests {
    @Test("A file opens with three connections and grows to its bounds under concurrent reads, never past them")
    func opensOnDemand() async throws {
        try await Self.withDatabase(readers: 3, scanners: 2) { database, _ in
            #expect(database.openConnections == 3, "writer, one reader and the health check's connection")
            try await database.read { _ = try await $0.query("SELECT 1") }
            #expect(database.openConnections == 3, "one read at a time reuses the reader")

            // Six readers and four scanners at once, each holding its connection until all have started.
            let gate = Gate(expected: 10)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await database.read(scanning: index >= 6) { connection in
                            _ = try await connection.query("SELECT 1")
                            await gate.arriveAndWait(upTo: .seconds(2))
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(database.openConnections == 1 + 3 + 2 + 1, "writer, three readers, two scanners, health check")
        }
    }

    @Test("When a connection cannot be opened, the caller gets the error and the callers waiting for one get theirs")
    func failedOpenLeavesNobodyWaiting() async throws {
        try await Self.withDatabase(readers: 2, scanners: 1) { database, directory in
            // Without its directory, SQLite cannot open the file again; the open connections still work.
            try FileManager.default.removeItem(atPath: directory)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            try await database.read(scanning: true) { _ = try await $0.query("SELECT 1") }
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.count == 4)
            #expect(outcomes.allSatisfy { !$0 }, "the scanner pool had no connection and could open none")
            try await database.read { _ = try await $0.query("SELECT 1") }
            #expect(database.openConnections == 3)
        }
    }

    @Test("A write that queues behind another for the one writer is heard as a wait as long as the other held it")
    func writerQueueIsAWait() async throws {
        let waits = Mutex<[Duration]>([])
        let recorder = PoolWaitRecorder { waited in waits.withLock { $0.append(waited) } }
        try await Self.withDatabase(readers: 1, scanners: 1, poolWaits: recorder) { database, _ in
            // The first transaction holds the writer until the second is seen queued, then 200 ms
            // more: however late either task runs, the second waited at least those 200 ms.
            let second = try await database.transaction { _ in
                let second = Task { try await database.transaction { _ in } }
                let deadline = ContinuousClock.now + .seconds(30)
                while database.queuedWrites == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
                #expect(database.queuedWrites == 1, "the second transaction queues for the writer")
                try await Task.sleep(for: .milliseconds(200))
                return second
            }
            try await second.value
            let recorded = waits.withLock { $0 }
            #expect(recorded.count == 2)
            #expect(recorded.contains { $0 >= .milliseconds(200) }, "heard \(recorded)")
        }
    }

    static func withDatabase(readers: Int, scanners: Int, poolWaits: PoolWaitRecorder? = nil, _ body: (SQLiteDatabase, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pool-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try await SQLiteDatabase.open(path: directory + "/pool.sqlite", readers: readers, scanners: scanners,
                                                     poolWaits: poolWaits ?? PoolWaitRecorder { _ in }, logger: TestDatabases.logger)
        do {
            try await body(database, directory)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}

/// Lets `expected` tasks wait until all have arrived (or `timeout` has passed, so that a pool that
/// lends fewer connections than asked makes the test fail on its count instead of hanging).
private actor Gate {
    let expected: Int
    var arrived = 0

    init(expected: Int) { self.expected = expected }

    func arriveAndWait(upTo timeout: Duration) async {
        arrived += 1
        let deadline = ContinuousClock.now + timeout
        while arrived < expected, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
