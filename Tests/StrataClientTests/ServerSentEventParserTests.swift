import Foundation
import StrataClient
import Testing

/// The event stream parser against the WHATWG HTML standard's examples and rules, fed in every
/// chunking that matters: whole, one byte at a time, and split inside CRLF and UTF-8 characters.
@Suite("Server-sent event parsing")
struct ServerSentEventParserTests {
    /// Parses `bytes` cut into pieces at the given sizes (repeating the last), returning every item.
    static func parse(_ bytes: [UInt8], chunks sizes: [Int], lastEventID: String = "") -> (items: [ServerSentEventParser.Item], lastEventID: String) {
        var parser = ServerSentEventParser(lastEventID: lastEventID)
        var items: [ServerSentEventParser.Item] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let size = max(1, sizes[min(index, sizes.count - 1)])
            items += parser.parse(bytes[offset..<min(offset + size, bytes.count)])
            offset += size
            index += 1
        }
        return (items, parser.lastEventID)
    }

    /// Every chunking gives the same items as the whole.
    static func parseAllWays(_ text: String, lastEventID: String = "") -> [ServerSentEventParser.Item] {
        let bytes = Array(text.utf8)
        let whole = parse(bytes, chunks: [bytes.count], lastEventID: lastEventID)
        for sizes in [[1], [2], [3], [5, 1], [7, 2, 1]] {
            let split = parse(bytes, chunks: sizes, lastEventID: lastEventID)
            #expect(split.items == whole.items, "chunks \(sizes)")
            #expect(split.lastEventID == whole.lastEventID, "chunks \(sizes)")
        }
        return whole.items
    }

    static func events(_ items: [ServerSentEventParser.Item]) -> [ServerSentEvent] {
        items.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    @Test("The standard's stock-ticker example: multi-line data, comment lines, an event without data is not dispatched")
    func stockExample() {
        // WHATWG HTML §9.2.6 example: "data: YHOO\ndata: +2\ndata: 10\n\n".
        let items = Self.parseAllWays("data: YHOO\ndata: +2\ndata: 10\n\n")
        #expect(Self.events(items) == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test("The standard's example with comments and ids: the id persists to later events")
    func commentsAndIDs() {
        let text = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"
        let items = Self.parseAllWays(text)
        // "id" with no value resets the last event ID; the third event is never dispatched (no blank line).
        #expect(Self.events(items) == [
            ServerSentEvent(data: "first event", id: "1"),
            ServerSentEvent(data: "second event", id: ""),
        ])
    }

    @Test("The standard's example of data fields: an empty data line, a field without colon, one space removed")
    func emptyDataAndSpaces() {
        let items = Self.parseAllWays("data\n\ndata\ndata\n\ndata:\n")
        #expect(Self.events(items) == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        let spaces = Self.parseAllWays("data:test\n\ndata: test\n\ndata:  test\n\n")
        #expect(Self.events(spaces).map(\.data) == ["test", "test", " test"])
    }

    @Test("CRLF, CR and LF line endings, mixed, and a CRLF split between chunks counts once")
    func lineEndings() {
        let text = "event: changes\r\nid: a\r\ndata: x\r\n\r\nid: b\rdata: y\r\rid: c\ndata: z\n\n"
        let items = Self.parseAllWays(text)
        #expect(Self.events(items) == [
            ServerSentEvent(type: "changes", data: "x", id: "a"),
            ServerSentEvent(data: "y", id: "b"),
            ServerSentEvent(data: "z", id: "c"),
        ])
        // Split exactly between CR and LF: the LF must not make a blank line (no early dispatch).
        var parser = ServerSentEventParser()
        #expect(parser.parse(Array("data: 1\r".utf8)).isEmpty)
        #expect(parser.parse(Array("\ndata: 2\r".utf8)).isEmpty)
        #expect(Self.events(parser.parse(Array("\n\r\n".utf8))) == [ServerSentEvent(data: "1\n2")])
    }

    @Test("A leading byte order mark is dropped once, split or not; a second one is content")
    func byteOrderMark() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let bytes = bom + Array("data: a\n\n".utf8)
        for sizes in [[bytes.count], [1], [2]] {
            #expect(Self.events(Self.parse(bytes, chunks: sizes).items) == [ServerSentEvent(data: "a")], "\(sizes)")
        }
        // A second BOM begins the field name, which is then unknown: nothing is dispatched.
        let twice = bom + bom + Array("data: a\n\n".utf8)
        #expect(Self.events(Self.parse(twice, chunks: [1]).items).isEmpty)
        // A partial BOM is content too (here: an unknown field, ignored), and the next line still parses.
        let partial = [0xEF, 0xBB] + Array("x\ndata: b\n\n".utf8)
        #expect(Self.events(Self.parse(partial, chunks: [1]).items) == [ServerSentEvent(data: "b")])
    }

    @Test("retry takes ASCII digits only; id with NUL is ignored; unknown fields are ignored")
    func retryAndID() {
        let items = Self.parseAllWays("retry: 2000\nretry: 2x\nretry: -5\nretry:\nfoo: bar\nid: ok\ndata: 1\n\nid: a\u{0}b\ndata: 2\n\n")
        #expect(items.first == .retry(milliseconds: 2000))
        #expect(items.filter { if case .retry = $0 { true } else { false } }.count == 1)
        #expect(Self.events(items) == [ServerSentEvent(data: "1", id: "ok"), ServerSentEvent(data: "2", id: "ok")])
    }

    @Test("An id without data still becomes the last event ID at the blank line; an unfinished event is dropped")
    func lastEventIDWithoutData() {
        var parser = ServerSentEventParser(lastEventID: "start")
        #expect(parser.parse(Array("id: 7\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "start")
        #expect(parser.parse(Array("\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "7")
        // A reconnect keeps the ID but drops the half-read event.
        #expect(parser.parse(Array("id: 8\ndata: half".utf8)).isEmpty)
        parser.reset()
        #expect(parser.lastEventID == "7")
        #expect(Self.events(parser.parse(Array("data: new\n\n".utf8))) == [ServerSentEvent(data: "new", id: "7")])
    }

    @Test("UTF-8 characters split between chunks arrive whole; invalid bytes become U+FFFD")
    func utf8() {
        let items = Self.parseAllWays("event: ändern\ndata: 🚗 Zoë\n\n")
        #expect(Self.events(items) == [ServerSentEvent(type: "ändern", data: "🚗 Zoë")])
        var parser = ServerSentEventParser()
        #expect(Self.events(parser.parse(Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8))) == [ServerSentEvent(data: "a\u{FFFD}b")])
    }

    @Test("The change feed's stream as the server writes it")
    func feedShape() {
        let text = "retry: 2000\n\nid: AQ1\nevent: ready\ndata: {}\n\n: keep-alive\n\nid: AQ2\nevent: changes\ndata: {\"tables\":[]}\n\nevent: gone\ndata: {\"error\":{}}\n\n"
        let items = Self.parseAllWays(text)
        #expect(items.first == .retry(milliseconds: 2000))
        #expect(Self.events(items) == [
            ServerSentEvent(type: "ready", data: "{}", id: "AQ1"),
            ServerSentEvent(type: "changes", data: #"{"tables":[]}"#, id: "AQ2"),
            ServerSentEvent(type: "gone", data: #"{"error":{}}"#, id: "AQ2"),
        ])
    }
}
