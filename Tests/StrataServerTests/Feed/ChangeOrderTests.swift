import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresNIO
import StrataSQL
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// Positions and commit order (docs/design/CHANGE-FEED.md §2): a reader never skips a change of a
/// transaction that commits after a later one.
@Suite("Change log commit order")
struct ChangeOrderTests {
    @Test("PostgreSQL: T1 writes and stays open, T2 commits; the reader gets T2, then exactly T1 once it commits")
    func postgresOutOfOrder() async throws {
        try await withTrackedServer(.postgres, tables: ["Car"]) { server in
            let start = try await server.current()
            let (first, second) = try await server.withForeignPostgres { t1 in
                try await t1.query("BEGIN", logger: TestDatabases.logger)
                // T1 takes the lower position…
                try await t1.query(#"INSERT INTO "Car" ("carID", "make", "model") VALUES (801, 'T1', 'first')"#, logger: TestDatabases.logger)
                // …T2 the higher one, and commits first.
                try await server.foreign(#"INSERT INTO "Car" ("carID", "make", "model") VALUES (802, 'T2', 'second')"#)
                let first = try await server.window(after: start)
                try await t1.query("COMMIT", logger: TestDatabases.logger)
                let second = try await server.window(after: first.end)
                return (first, second)
            }
            #expect(first.changes.map(\.summary) == ["Car 802"])
            #expect(second.changes.map(\.summary) == ["Car 801"])
            #expect(second.changes[0].position < first.changes[0].position, "T1's position is below T2's: sequence order is not commit order")
            #expect(try await server.window(after: second.end).changes.isEmpty)
            // A window bounded by an earlier cursor stops there.
            let bounded = try await server.window(after: start, upTo: first.end)
            #expect(bounded.changes.map(\.summary) == ["Car 802"])
        }
    }

    @Test("SQLite: a Strata write waits for another connection's open write transaction, so positions are commit order")
    func sqliteWriterWaits() async throws {
        try await withTrackedServer(.sqlite, tables: ["Car"]) { server in
            let start = try await server.current()
            let other = try SQLiteHandle(path: server.sqlitePath)
            defer { other.close() }
            try other.execute("BEGIN IMMEDIATE")
            try other.execute(#"INSERT INTO "Car" ("carID", "make", "model") VALUES (801, 'T1', 'first')"#)
            let client = server.client
            let began = ContinuousClock.now
            let (started, starting) = AsyncStream<Void>.makeStream()
            let write = Task {
                starting.yield()
                let status = try await client.post("/cardealer/Car", #"{"make":"T2","model":"second"}"#).status
                return (status, ContinuousClock.now)
            }
            // Once the request is on its way, T1 holds the lock a while longer: T2 reaches its BEGIN
            // meanwhile and must wait there. (Were it slower still, it would find the lock free:
            // this run would prove less, but not fail falsely.)
            for await _ in started { break }
            try await Task.sleep(for: .milliseconds(500))
            let committed = ContinuousClock.now
            try other.execute("COMMIT")
            let (status, finished) = try await write.value
            #expect(status == .created)
            #expect(finished >= committed, "T2 must wait for T1's write lock (it took \(finished - began))")
            let window = try await server.window(after: start)
            try #require(window.changes.count == 2)
            #expect(window.changes[0].summary == "Car 801")
            #expect(window.changes[0].position < window.changes[1].position)
            #expect(window.changes[0].transaction == nil && window.changes[1].transaction != nil)
        }
    }
}
