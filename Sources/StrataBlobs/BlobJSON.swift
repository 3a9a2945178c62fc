import StrataCore

/// The JSON documents of the blob endpoints: a blob's properties, a listing page, the containers.
///
/// `etag` is the `ETag` header's value (quoted), so it can be sent back in `If-Match` as it is;
/// `lastModified` is ISO 8601 in UTC with milliseconds.
enum BlobJSON {
    static func properties(_ blob: BlobRecord, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(blob.name)
        writer.key("size")
        writer.number(blob.size)
        writer.key("contentType")
        writer.string(blob.contentType)
        writer.key("etag")
        writer.string(blob.etag)
        writer.key("lastModified")
        writer.string(iso8601(milliseconds: blob.modifiedAt))
        writer.endObject()
    }

    static func properties(_ blob: BlobRecord) -> [UInt8] {
        var writer = JSONWriter()
        properties(blob, into: &writer)
        return writer.bytes
    }

    /// `{"container", "access", "prefix", "blobs": [...], "nextMarker"}`; `nextMarker` is null on
    /// the last page, otherwise the `marker` that continues the listing.
    static func listing(_ container: BlobContainer, prefix: String, blobs: [BlobRecord], nextMarker: String?) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + blobs.count * 160)
        writer.beginObject()
        writer.key("container")
        writer.string(container.name)
        writer.key("access")
        writer.string(container.access.rawValue)
        writer.key("prefix")
        writer.string(prefix)
        writer.key("blobs")
        writer.beginArray()
        for blob in blobs { properties(blob, into: &writer) }
        writer.endArray()
        writer.key("nextMarker")
        if let nextMarker { writer.string(nextMarker) } else { writer.null() }
        writer.endObject()
        return writer.bytes
    }

    static func container(_ container: BlobContainer, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(container.name)
        writer.key("access")
        writer.string(container.access.rawValue)
        writer.key("created")
        writer.string(iso8601(milliseconds: container.createdAt))
        writer.endObject()
    }

    static func containers(_ containers: [BlobContainer]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("containers")
        writer.beginArray()
        for item in containers { container(item, into: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `2012-03-19T14:27:53.729Z`.
    static func iso8601(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - day * 86_400
        let (year, month, dayOfMonth) = HTTPDate.civil(fromDays: day)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int64(year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(dayOfMonth), 2))T\(pad(time / 3600, 2)):\(pad(time / 60 % 60, 2)):\(pad(time % 60, 2)).\(pad(milliseconds - seconds * 1000, 3))Z"
    }
}
