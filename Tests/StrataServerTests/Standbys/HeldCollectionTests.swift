import Foundation
import StrataCore
@testable import StrataOData
import StrataSQL
@testable import StrataStorage
import Testing

/// How a collection longer than one chunk uses the snapshot its database holds for it
/// (``HeldSnapshot``), against a database that answers chunks of ids without SQL: every chunk after
/// the first is read in the held snapshot; once it has been held as long as it may be, the page
/// ends with `__next` for a client that can follow one, and a client that cannot gets an error.
@Suite("Standbys: a long collection in a held snapshot")
struct HeldCollectionTests {
    static let total = 3500

    @Test("Chunks after the first are read in the held snapshot, and the whole collection arrives")
    func readsInSnapshot() async throws {
        let database = ChunkDatabase(total: Self.total, hold: .seconds(30))
        var rows = Self.rows(database, pageSize: nil)
        var ids: [Int64] = []
        _ = try await rows.start()
        while let chunk = try await rows.next() { ids += chunk.compactMap { $0.values[0].integerValue } }
        #expect(ids == (0..<Int64(Self.total)).map { $0 })
        #expect(database.reads == (outside: 1, held: 3), "the first chunk as any read, the three after it in the snapshot")
        #expect(database.opened == 1)
    }

    @Test("A snapshot held as long as it may be: the page ends with __next where the client can follow it; else an error")
    func expired() async throws {
        let paged = ChunkDatabase(total: Self.total, hold: .zero)
        var rows = Self.rows(paged, pageSize: 10_000)
        _ = try await rows.start()
        var handed = 0
        while let chunk = try await rows.next() { handed += chunk.count }
        #expect(handed == 1000 && rows.finished, "the first chunk, then the page ends")
        #expect(rows.nextPage?.position.first?.integerValue == 999, "__next continues after the last row handed out")
        #expect(paged.reads.held == 0, "nothing was read outside the snapshot after it ended")

        let unpaged = ChunkDatabase(total: Self.total, hold: .zero)
        var all = Self.rows(unpaged, pageSize: nil)
        _ = try await all.start()
        _ = try await all.next()
        await #expect(throws: HeldSnapshot.Expired.self) { _ = try await all.next() }
        #expect(unpaged.reads == (outside: 1, held: 0), "no chunk read outside the snapshot: \(unpaged.reads)")
    }

    static func rows(_ database: ChunkDatabase, pageSize: Int?) -> CollectionRows {
        let id = SQLTerm.column(alias: "t", name: "id")
        let query = SelectQuery(items: [SelectColumn(expression: id, alias: "c0")], from: TableName(schema: nil, name: "t"), alias: "t")
        let reader = CollectionReader(database: database, query: query, sortKeys: [SortKey(expression: id, descending: false, type: .int64, canBeNull: false)],
                                      columnTypes: [.int64])
        return CollectionRows(reader: reader, limits: PageLimits(pageSize: pageSize), inlineCount: nil)
    }
}

/// Ids 0..<total in chunks: each query answers the next `limit` ids after the last one it gave
/// minus the one read ahead (what keyset chunks of `LIMIT chunk + 1` ask for).
final class ChunkDatabase: Database, @unchecked Sendable {
    // `@unchecked`: its counters are behind `lock`.
    let dialect = SQLDialect.sqlite
    let total: Int
    let hold: Duration
    private let lock = NSLock()
    private var next = 0
    private var outside = 0, inside = 0, opens = 0

    init(total: Int, hold: Duration) {
        self.total = total
        self.hold = hold
    }

    var reads: (outside: Int, held: Int) { lock.withLock { (outside, inside) } }
    var opened: Int { lock.withLock { opens } }

    func read<T: Sendable>(scanning: Bool, _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        if let held = HeldSnapshot.current, held.owner == ObjectIdentifier(self) {
            return try await held.run { connection in
                self.lock.withLock { self.inside += 1 }
                return try await body(connection)
            }
        }
        lock.withLock { outside += 1 }
        return try await body(Chunks(database: self))
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await read(scanning: false, body)
    }

    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> T {
        try await read(scanning: false, body)
    }

    func holdSnapshot() async throws -> HeldSnapshot? {
        lock.withLock { opens += 1 }
        let held = HeldSnapshot(owner: ObjectIdentifier(self), deadline: .now + hold)
        Task { while let job = await held.next() { await job(Chunks(database: self)) } }
        if hold == .zero { held.close() }
        return held
    }

    func ping() async throws {}
    func close() async {}

    /// The next chunk of `limit` ids (the last of them is read again by the next chunk).
    func chunk(_ limit: Int) -> [[ODataValue]] {
        lock.withLock {
            let ids = next..<min(total, next + limit)
            next += max(0, limit - 1)
            return ids.map { [.int64(Int64($0)), .int64(Int64($0))] }
        }
    }

    struct Chunks: DatabaseConnection {
        let database: ChunkDatabase
        var dialect: SQLDialect { .sqlite }

        func query(_ statement: SQLStatement, types: [EDMPrimitiveType?]) async throws -> SQLRows {
            // Every chunk query asks for a chunk and one row more (CollectionRows); the SQL is not read.
            SQLRows(columns: ["c0", "s0"], rows: database.chunk(1001))
        }

        func execute(_ statement: SQLStatement) async throws {}
    }
}
