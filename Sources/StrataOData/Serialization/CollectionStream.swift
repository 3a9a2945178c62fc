import StrataCore

/// Writes a collection response as its rows arrive: the JSON document around the chunks that
/// ``CollectionRows`` hands out (V2's verbose `{"d":{"results":[…]}}`, V1's bare array, or V4's
/// `{"@odata.context":…,"value":[…]}`), each row written by `writeRow`, and the next link when the
/// page ends before the collection.
///
/// The first chunk was read before the response started (``CollectionRows/start()``), so that a
/// failing query still got a proper error status; after that, bytes flow to the client as rows arrive.
struct CollectionStream: ChunkedBody {
    private var rows: CollectionRows
    let framing: Framing
    /// Writes one row: an entity, or a `{"uri":…}` object for `$links`.
    let writeRow: @Sendable (EntityRow, inout JSONWriter) -> Void
    /// Builds the `__next` link from the position after the last row and the rows still wanted (`$top`).
    let nextLink: @Sendable (_ position: [ODataValue], _ remainingTop: Int?) -> String
    /// A tracked read's `__delta` link, written on its last page.
    var deltaLink: String?

    private var writer = JSONWriter(capacity: 64 * 1024)
    private var started = false
    private var finished = false
    /// Entities of the current chunk not written yet: a chunk is written in pieces of about
    /// ``flushSize`` bytes, so that the bytes held do not grow with a chunk's `$expand`ed entities.
    private var pending: [EntityRow] = []
    private var pendingIndex = 0

    /// Bytes of JSON written before they are handed to the connection.
    static let flushSize = 256 * 1024

    /// The document around the rows.
    enum Framing: Sendable {
        /// `{"d":[…]}`
        case v1
        /// `{"d":{"__count":"…","results":[…],"__next":"…"}}`
        case v2
        /// `{"@odata.context":"…","@odata.count":…,"value":[…],"@odata.nextLink":"…"}`; the
        /// context is nil for `odata.metadata=none`.
        case v4(context: String?)

        init(_ version: ODataVersion, context: @autoclosure () -> String?) {
            switch version {
            case .v1: self = .v1
            case .v2: self = .v2
            case .v4: self = .v4(context: context())
            }
        }
    }

    init(rows: CollectionRows, framing: Framing,
         writeRow: @escaping @Sendable (EntityRow, inout JSONWriter) -> Void,
         nextLink: @escaping @Sendable ([ODataValue], Int?) -> String) {
        self.rows = rows
        self.framing = framing
        self.writeRow = writeRow
        self.nextLink = nextLink
    }

    /// The next bytes of the document, or nil when it is complete.
    mutating func nextBytes() async throws -> [UInt8]? {
        guard started else {
            started = true
            return try await start()
        }
        guard !finished else { return nil }
        try await writeChunk()
        let bytes = writer.takeBytes()
        return bytes.isEmpty && finished ? nil : bytes
    }

    /// The opening of the document and the first chunk (already read: no wait on the database).
    private mutating func start() async throws -> [UInt8] {
        writer.beginObject()
        switch framing {
        case .v1:
            writer.key("d")
        case .v2:
            writer.key("d")
            writer.beginObject()
            if let inlineCount = rows.inlineCount {
                writer.key("__count")
                writer.string(String(inlineCount))
            }
            writer.key("results")
        case .v4(let context):
            if let context {
                writer.key("@odata.context")
                writer.string(context)
            }
            if let inlineCount = rows.inlineCount {
                writer.key("@odata.count")
                writer.raw(String(inlineCount))
            }
            writer.key("value")
        }
        writer.beginArray()
        try await writeChunk()
        return writer.takeBytes()
    }

    /// Writes rows until about ``flushSize`` bytes are ready, reading the next chunk when the
    /// current one is written.
    private mutating func writeChunk() async throws {
        if pendingIndex == pending.count {
            pending = try await rows.next() ?? []
            pendingIndex = 0
        }
        while pendingIndex < pending.count, writer.count < Self.flushSize {
            writeRow(pending[pendingIndex], &writer)
            pendingIndex += 1
        }
        if pendingIndex == pending.count {
            pending = []
            pendingIndex = 0
            if rows.finished { finish() }
        }
    }

    private mutating func finish() {
        guard !finished else { return }
        finished = true
        writer.endArray()
        switch framing {
        case .v1:
            break
        case .v2:
            if let next = rows.nextPage {
                writer.key("__next")
                writer.string(nextLink(next.position, next.remainingTop))
            } else if let deltaLink {
                writer.key(ODataDelta.deltaLinkMember)
                writer.string(deltaLink)
            }
            writer.endObject()
        case .v4:
            if let next = rows.nextPage {
                writer.key("@odata.nextLink")
                writer.string(nextLink(next.position, next.remainingTop))
            } else if let deltaLink {
                writer.key("@odata.deltaLink")
                writer.string(deltaLink)
            }
        }
        writer.endObject()
    }
}
