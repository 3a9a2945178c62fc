import StrataCore

/// The rows of a collection read, chunk by chunk: keyset chunks from a ``CollectionReader``,
/// completed by `prepare` (expansions), cut to `$top`, `$skip` and the server's page size.
///
/// Execution's side of a streamed collection: it hands out rows, never bytes. Serialization's
/// ``CollectionStream`` writes each chunk as it comes, so memory holds one chunk (and the next one
/// being read) whatever the collection's size.
struct CollectionRows: Sendable {
    let reader: CollectionReader
    let limits: PageLimits
    /// Completes a chunk's rows before they are handed out (loads `$expand`ed entities in one query per level).
    let prepare: @Sendable ([EntityRow]) async throws -> [EntityRow]
    /// `$inlinecount=allpages`: the number of rows of the whole collection.
    let inlineCount: Int?

    private var remainingTop: Int?
    private var remainingPage: Int?
    private var position: [ODataValue]?
    private var offset: Int
    /// The first chunk, read by ``start()`` before the response starts.
    private var pending: [EntityRow]?
    /// The next chunk's rows, already being read while this chunk is written: reading (on the
    /// thread pool) and writing JSON (on the request's task) then overlap on two cores.
    private var prefetched: Task<[CollectionReader.Row], any Error>?
    /// True once the last chunk was handed out.
    private(set) var finished = false
    /// Where the next page starts and how many rows `$top` still wants, when the page ended before
    /// the collection did (the `__next` link).
    private(set) var nextPage: (position: [ODataValue], remainingTop: Int?)?

    init(reader: CollectionReader, limits: PageLimits, inlineCount: Int?,
         prepare: @escaping @Sendable ([EntityRow]) async throws -> [EntityRow] = { $0 }) {
        self.reader = reader
        self.limits = limits
        self.prepare = prepare
        self.inlineCount = inlineCount
        self.remainingTop = limits.top
        self.remainingPage = limits.pageSize
        self.position = limits.continuation
        self.offset = limits.skip
    }

    /// Reads the first chunk, so that a failing query still gets an error status; returns its size.
    mutating func start() async throws -> Int {
        let first = try await readChunk() ?? []
        pending = first
        return first.count
    }

    /// The next chunk's entities, or nil when the collection (or the page) is complete.
    mutating func next() async throws -> [EntityRow]? {
        if let first = pending {
            pending = nil
            return first
        }
        return try await readChunk()
    }

    private mutating func readChunk() async throws -> [EntityRow]? {
        guard !finished else { return nil }
        let want = wanted
        guard want > 0 else {
            finished = true
            return nil
        }
        // One row more than wanted tells whether anything follows.
        let rows: [CollectionReader.Row]
        if let prefetched {
            rows = try await prefetched.value
        } else {
            rows = try await reader.fetch(limit: want + 1, offset: offset, after: position)
        }
        prefetched = nil
        let used = rows.prefix(want)
        remainingTop = remainingTop.map { $0 - used.count }
        remainingPage = remainingPage.map { $0 - used.count }
        offset = 0
        if let last = used.last { position = last.position }
        let moreRows = rows.count > want
        let nextWant = wanted
        if moreRows, nextWant > 0, let position {
            let reader = reader
            prefetched = Task { try await reader.fetch(limit: nextWant + 1, offset: 0, after: position) }
        }
        let entities = try await prepare(used.map { EntityRow(values: $0.values) })
        if !moreRows || remainingTop == 0 {
            finished = true
        } else if remainingPage == 0, let position {
            nextPage = (position, remainingTop)
            finished = true
        }
        return entities
    }

    /// Rows the next chunk should hold: a chunk, or fewer when `$top` or the page ends sooner.
    private var wanted: Int {
        [limits.chunkSize, remainingTop ?? .max, remainingPage ?? .max].min()!
    }
}
