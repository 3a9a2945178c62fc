import StrataCore

/// Produces a collection response chunk by chunk: reads rows through a ``CollectionReader``,
/// lets `prepare` complete each chunk (expansions), and writes the JSON as it goes.
///
/// The first chunk is read before the response starts, so that a failing query still gets a proper
/// error status; after that, bytes flow to the client as rows arrive.
struct CollectionStream: ChunkedBody {
    let reader: CollectionReader
    let limits: PageLimits
    let version: ODataVersion
    /// Writes one row: an entity, or a `{"uri":…}` object for `$links`.
    let writeRow: @Sendable (EntityRow, inout JSONWriter) -> Void
    /// Completes a chunk's rows before they are written (loads `$expand`ed entities in one query per level).
    let prepare: @Sendable ([EntityRow]) async throws -> [EntityRow]
    /// Builds the `__next` link from the position after the last row and the rows still wanted (`$top`).
    let nextLink: @Sendable (_ position: [ODataValue], _ remainingTop: Int?) -> String
    /// `"__count"` for `$inlinecount=allpages`.
    let inlineCount: Int?

    private var writer = JSONWriter(capacity: 64 * 1024)
    private var remainingTop: Int?
    private var remainingPage: Int?
    private var position: [ODataValue]?
    private var offset: Int
    private var finished = false
    private var next: String?
    /// The next chunk's rows, already being read while this chunk is written: reading (on the
    /// thread pool) and writing JSON (on the request's task) then overlap on two cores.
    private var prefetched: Task<[CollectionReader.Row], any Error>?
    /// Rows written so far; an empty first chunk lets the caller check that the parent entity exists.
    private(set) var rowCount = 0

    init(reader: CollectionReader, limits: PageLimits, version: ODataVersion, inlineCount: Int?,
         writeRow: @escaping @Sendable (EntityRow, inout JSONWriter) -> Void,
         prepare: @escaping @Sendable ([EntityRow]) async throws -> [EntityRow] = { $0 },
         nextLink: @escaping @Sendable ([ODataValue], Int?) -> String) {
        self.reader = reader
        self.limits = limits
        self.version = version
        self.writeRow = writeRow
        self.inlineCount = inlineCount
        self.prepare = prepare
        self.nextLink = nextLink
        self.remainingTop = limits.top
        self.remainingPage = limits.pageSize
        self.position = limits.continuation
        self.offset = limits.skip
    }

    /// Writes the opening of the document and the first chunk; call before the response starts.
    mutating func start() async throws -> [UInt8] {
        writer.beginObject()
        writer.key("d")
        if version >= .v2 {
            writer.beginObject()
            if let inlineCount {
                writer.key("__count")
                writer.string(String(inlineCount))
            }
            writer.key("results")
        }
        writer.beginArray()
        try await readChunk()
        return writer.takeBytes()
    }

    /// The next bytes of the document, or nil when it is complete.
    mutating func nextBytes() async throws -> [UInt8]? {
        guard !finished else { return nil }
        try await readChunk()
        let bytes = writer.takeBytes()
        return bytes.isEmpty && finished ? nil : bytes
    }

    private mutating func readChunk() async throws {
        let want = wanted
        guard want > 0 else {
            finish()
            return
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
        for entity in entities {
            writeRow(entity, &writer)
        }
        rowCount += entities.count
        if !moreRows || remainingTop == 0 {
            finish()
        } else if remainingPage == 0, let position {
            next = nextLink(position, remainingTop)
            finish()
        }
    }

    /// Rows the next chunk should hold: a chunk, or fewer when `$top` or the page ends sooner.
    private var wanted: Int {
        [limits.chunkSize, remainingTop ?? .max, remainingPage ?? .max].min()!
    }

    private mutating func finish() {
        guard !finished else { return }
        finished = true
        writer.endArray()
        if version >= .v2 {
            if let next {
                writer.key("__next")
                writer.string(next)
            }
            writer.endObject()
        }
        writer.endObject()
    }
}
