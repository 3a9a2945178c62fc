import HTTPTypes
import StrataCore

/// Writes OData 4.01's JSON batch response: `{"responses":[{"id","atomicityGroup","status",
/// "headers","body"},…]}` in request order. A JSON body is embedded as JSON, any other as a string.
package struct BatchJSONResponseWriter {
    private var writer = JSONWriter(capacity: 4096)

    package init() {
        writer.beginObject()
        writer.key("responses")
        writer.beginArray()
    }

    package static let contentType = "application/json;charset=utf-8"

    package mutating func append(_ part: BatchPartResponse, group: String? = nil) {
        writer.beginObject()
        if let id = part.contentID {
            writer.key("id")
            writer.string(id)
        }
        if let group {
            writer.key("atomicityGroup")
            writer.string(group)
        }
        writer.key("status")
        writer.number(Int(part.status.code))
        writer.key("headers")
        writer.beginObject()
        for field in part.headers where field.name != .contentLength {
            writer.key(field.name.rawName.lowercased())
            writer.string(field.value)
        }
        writer.endObject()
        if !part.body.isEmpty {
            writer.key("body")
            let isJSON = part.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false
            if isJSON, (try? JSONValue.parse(part.body)) != nil {
                writer.raw(bytes: part.body)
            } else {
                writer.string(String(decoding: part.body, as: UTF8.self))
            }
        }
        writer.endObject()
    }

    package mutating func finish() -> [UInt8] {
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
