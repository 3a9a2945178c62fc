/// One event of a `text/event-stream`, as the WHATWG HTML standard's "server-sent events" section
/// dispatches it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event:` field, `message` when there was none.
    public var type: String
    /// The `data:` fields joined with line feeds.
    public var data: String
    /// The last event ID when the event was dispatched: the most recent `id:` field of this event
    /// or an earlier one; empty when none was given. A reconnect sends it as `Last-Event-ID`.
    public var id: String

    /// An event; the parser makes these.
    public init(type: String = "message", data: String, id: String = "") {
        self.type = type
        self.data = data
        self.id = id
    }
}

/// Reads a `text/event-stream` byte by byte, in whatever chunks it arrives, following the parsing
/// rules of the WHATWG HTML standard ("Server-sent events", "Parsing an event stream" and
/// "Interpreting an event stream"): one leading byte order mark is dropped; lines end with CRLF,
/// LF or CR (a CRLF split between chunks counts once); a line starting with `:` is a comment; a
/// field's value starts after the colon and one optional space; `data` lines are joined with LF;
/// an `id` containing NUL is ignored; `retry` is honoured only when it is all ASCII digits; unknown
/// fields are ignored; a blank line dispatches the event, unless no `data` was given (then only the
/// last event ID is kept); an event left unfinished at the end of the stream is dropped.
///
/// Bytes are decoded as UTF-8 per line, invalid sequences becoming U+FFFD, as the standard's UTF-8
/// decode does; a multi-byte character split between chunks is joined first, since lines are split
/// on ASCII bytes only.
public struct ServerSentEventParser: Sendable {
    /// What the stream said: an event to dispatch, or a new reconnection time.
    public enum Item: Sendable, Hashable {
        /// A dispatched event.
        case event(ServerSentEvent)
        /// A `retry:` field: the reconnection time in milliseconds.
        case retry(milliseconds: Int)
    }

    /// The last event ID, as of the last dispatch (blank line): what a reconnect sends.
    public private(set) var lastEventID: String

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: String = ""
    private var pendingID: String
    private var afterCR = false
    /// Bytes seen at the stream's start, until it is known whether they are a byte order mark.
    private var start: [UInt8]? = []

    /// A parser for a new stream; `lastEventID` is the ID a reconnect continues from (the standard
    /// keeps it across connections of one `EventSource`).
    public init(lastEventID: String = "") {
        self.lastEventID = lastEventID
        self.pendingID = lastEventID
    }

    /// Prepares for the next connection of the same stream: its bytes start afresh (an unfinished
    /// event is dropped, a byte order mark may come again) while the last event ID is kept.
    public mutating func reset() {
        self = ServerSentEventParser(lastEventID: lastEventID)
    }

    /// Reads the next bytes of the stream and returns what they complete, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [Item] {
        var items: [Item] = []
        for byte in bytes { consume(byte, into: &items) }
        return items
    }

    private mutating func consume(_ byte: UInt8, into items: inout [Item]) {
        if var pending = start {
            // U+FEFF is EF BB BF; anything else at the start is replayed as content.
            pending.append(byte)
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            if pending == Array(bom.prefix(pending.count)) {
                start = pending.count == bom.count ? nil : pending
                return
            }
            start = nil
            for replayed in pending { consumeContent(replayed, into: &items) }
            return
        }
        consumeContent(byte, into: &items)
    }

    private mutating func consumeContent(_ byte: UInt8, into items: inout [Item]) {
        switch byte {
        case 0x0A: // LF: ends a line, unless it completes a CRLF whose CR already did.
            if afterCR {
                afterCR = false
                return
            }
            endLine(into: &items)
        case 0x0D: // CR
            afterCR = true
            endLine(into: &items)
        default:
            afterCR = false
            line.append(byte)
        }
    }

    private mutating func endLine(into items: inout [Item]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            dispatch(into: &items)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let name: String
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = String(decoding: line[..<colon], as: UTF8.self)
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = String(decoding: line, as: UTF8.self)
            value = []
        }
        switch name {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            data += value
            data.append(0x0A)
        case "id":
            if !value.contains(0) { pendingID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                items.append(.retry(milliseconds: milliseconds))
            }
        default:
            break
        }
    }

    private mutating func dispatch(into items: inout [Item]) {
        lastEventID = pendingID
        defer {
            data.removeAll(keepingCapacity: true)
            eventType = ""
        }
        guard !data.isEmpty else { return }
        let text = String(decoding: data.dropLast(), as: UTF8.self)
        items.append(.event(ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: text, id: lastEventID)))
    }
}
