import StrataCore

/// The bytes of the change stream (`text/event-stream`, WHATWG HTML "Server-sent events").
///
/// A `changes` event holds one committed transaction's changes a subscriber may see, in the
/// compact table form with `deleted` keys; its `id` is a feed token (``FeedToken``) placed right
/// after that transaction, so that `Last-Event-ID` resumes strictly after it. JSON is written
/// without line breaks, so each event's data is one `data:` line.
enum FeedEvent {
    /// Sent first: how long a client waits before reconnecting (milliseconds).
    static let retry: [UInt8] = Array("retry: 2000\n\n".utf8)
    /// A comment line that keeps proxies and the server's idle timeout from closing a quiet stream.
    static let heartbeat: [UInt8] = Array(": keep-alive\n\n".utf8)

    /// The first event of a stream that starts now: its id is where the stream starts.
    static func ready(token: String) -> [UInt8] {
        Array("id: \(token)\nevent: ready\ndata: {}\n\n".utf8)
    }

    /// The end of a stream that cannot go on (the caller's rights or the service's tracking
    /// changed): the OData error says to read the tables again. Clients do not reconnect.
    static func gone(_ error: ODataError) -> [UInt8] {
        Array("event: gone\ndata: ".utf8) + error.jsonBody + Array("\n\n".utf8)
    }

    /// One transaction's changes for one shape.
    package struct Table {
        var member: FeedShape.Member
        var rows: [[ODataValue]] = []
        var deleted: [[ODataValue]] = []
    }

    static func changes(token: String, tables: [Table]) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        CompactTableWriter.beginDocument(into: &writer)
        for table in tables {
            CompactTableWriter.begin(name: table.member.set.name, fields: table.member.fields, into: &writer)
            for row in table.rows { CompactTableWriter.row(row, into: &writer) }
            CompactTableWriter.endRows(into: &writer)
            CompactTableWriter.deleted(table.deleted, into: &writer)
            CompactTableWriter.endTable(into: &writer)
        }
        CompactTableWriter.endDocument(into: &writer)
        return Array("id: \(token)\nevent: changes\ndata: ".utf8) + writer.bytes + Array("\n\n".utf8)
    }
}
