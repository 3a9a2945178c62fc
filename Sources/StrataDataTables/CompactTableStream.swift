import Hummingbird
import NIOCore
import StrataCore
import StrataOData
import StrataStorage

/// Writes `$tables` answers chunk by chunk: each table's header, then its rows as they come from
/// the database in keyset chunks (``CollectionReader``), so memory does not grow with the table.
///
/// The first chunk of the first table is read before the response starts, so a failing query
/// still answers with an error status; after that, bytes flow as rows arrive.
struct CompactTableStream: ChunkedBody {
    /// One table to write: its definitions and how to read its rows.
    package struct Table: Sendable {
        var name: String
        var fields: [DataTableField]
        /// Positions, in the rows the reader returns, of the fields' values.
        var positions: [Int]
        var reader: CollectionReader
        /// `$top`: rows wanted in all; nil for all.
        var top: Int?
        /// `$skip`: rows to pass over first.
        var skip: Int
    }

    let tables: [Table]
    /// `{"tables":[…]}` around the tables; a single-table request answers the table alone.
    let wrapped: Bool
    var chunkSize = 1000
    /// A change-feed token for the state the tables were read in (`$tables?…&track=1`), written
    /// after the tables: in the document, or in the table object of a single-table answer.
    var token: String?

    private var writer = JSONWriter(capacity: 64 * 1024)
    private var index = 0
    private var started = false
    private var finished = false
    private var position: [ODataValue]?
    private var remaining: Int?
    private var offset = 0
    /// The current table's next chunk, already being read while this one is written: the
    /// database's work (PostgreSQL's backend, SQLite's thread) and writing JSON then overlap.
    private var prefetched: Task<[CollectionReader.Row], any Error>?
    /// The snapshot the reads after the first chunk run in, on a server with standbys
    /// (``HeldSnapshot``): they happen after the response's head with its `Strata-Position` went
    /// out, and must not be newer than that position. Opened once the first chunk shows that more
    /// follows; every table of the answer is then read in it.
    private var held: HeldSnapshot.Lease?
    private var askedToHold = false

    init(tables: [Table], wrapped: Bool, token: String? = nil) {
        self.tables = tables
        self.wrapped = wrapped
        self.token = token
    }

    /// The response: the first chunk read now, the rest streamed.
    static func response(_ stream: CompactTableStream) async throws -> Response {
        var stream = stream
        let first = try await stream.nextBytes() ?? []
        return ODataResponse.streamed(first: first, rest: stream, headers: [.contentType: ODataResponse.jsonContentType])
    }

    /// The next bytes of the document, or nil when it is complete.
    mutating func nextBytes() async throws -> [UInt8]? {
        guard !finished else { return nil }
        if !started {
            started = true
            if wrapped { CompactTableWriter.beginDocument(into: &writer) }
            beginTable()
        }
        while writer.count < 16 * 1024, !finished {
            try await step()
        }
        return writer.takeBytes()
    }

    private mutating func beginTable() {
        guard index < tables.count else {
            if wrapped { endWithToken() }
            finished = true
            return
        }
        let table = tables[index]
        CompactTableWriter.begin(name: table.name, fields: table.fields, into: &writer)
        position = nil
        remaining = table.top
        offset = table.skip
    }

    /// `]}` with the token, if any, before the `}`.
    private mutating func endWithToken() {
        writer.endArray()
        CompactTableWriter.resume(token: token, next: nil, into: &writer)
        writer.endObject()
    }

    /// Reads and writes one chunk of the current table, moving to the next table at its end.
    private mutating func step() async throws {
        let table = tables[index]
        let want = min(chunkSize, remaining ?? .max)
        var done = want == 0
        if want > 0 {
            let rows: [CollectionReader.Row]
            if let prefetched {
                rows = try await prefetched.value
                self.prefetched = nil
            } else {
                rows = try await Self.fetch(table.reader, in: held?.snapshot, limit: want + 1, offset: offset, after: position)
            }
            let used = rows.prefix(want)
            remaining = remaining.map { $0 - used.count }
            offset = 0
            position = used.last?.position ?? position
            done = rows.count <= want || remaining == 0
            if !askedToHold, !done || index + 1 < tables.count {
                askedToHold = true
                held = try await table.reader.database.holdSnapshot().map(HeldSnapshot.Lease.init)
            }
            // One row more than wanted says whether anything follows; if so, its chunk is read now.
            if !done, let position {
                let (reader, next, snapshot) = (table.reader, min(chunkSize, remaining ?? .max), held?.snapshot)
                prefetched = Task { try await Self.fetch(reader, in: snapshot, limit: next + 1, offset: 0, after: position) }
            }
            for row in used { CompactTableWriter.row(row.cells, at: table.positions, into: &writer) }
        }
        if done {
            if wrapped { CompactTableWriter.end(into: &writer) } else { endWithToken() }
            index += 1
            beginTable()
            // The connection goes back to the pool now, not when the response is released.
            if finished { held = nil }
        }
    }

    /// A chunk read in the held snapshot while it lasts, else as any read. Unlike a collection's
    /// page, a `$tables` answer does not end early when the snapshot has been held as long as it
    /// may be (the statement timeout): a replica's first download of a million rows over a slow
    /// network would fail again each time it tried. Its later rows may then be newer than the
    /// position the answer carries (docs/DEPLOYMENT.md, *Standbys*).
    private static func fetch(_ reader: CollectionReader, in snapshot: HeldSnapshot?, limit: Int, offset: Int,
                              after position: [ODataValue]?) async throws -> [CollectionReader.Row] {
        if let snapshot, snapshot.isOpen {
            do {
                return try await HeldSnapshot.$current.withValue(snapshot) {
                    try await reader.fetch(limit: limit, offset: offset, after: position)
                }
            } catch is HeldSnapshot.Expired {}
        }
        return try await reader.fetch(limit: limit, offset: offset, after: position)
    }
}
