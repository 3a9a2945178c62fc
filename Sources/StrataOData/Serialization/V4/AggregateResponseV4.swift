import Hummingbird
import StrataCore

/// Writes a page of aggregated rows (``AggregatedRows``) as a V4 collection of dynamic entities:
/// no `@odata.id` (they are not entities of the set), a grouping path through a navigation property
/// nested as in the extension's examples (`{"Car":{"make":"Ford"},"Total":3}`), and a context URL
/// naming the columns, `$metadata#Person(lastName,Total)`.
struct AggregateResponseV4 {
    let call: ODataCall

    /// The columns as the result nests them: a name with a column, or a name with the columns below it.
    indirect enum Member {
        case value(String, Int)
        case nested(String, [Member])
    }

    /// The members of `written` (positions in `columns`; nil for all of them).
    static func members(_ columns: [ApplyColumn], written: [Int]? = nil) -> [Member] {
        members((written ?? Array(columns.indices)).map { (path: columns[$0].path[...], index: $0) })
    }

    private static func members(_ entries: [(path: ArraySlice<String>, index: Int)]) -> [Member] {
        var result: [Member] = []
        var nestedNames: [String] = []
        for entry in entries {
            let name = entry.path.first!
            if entry.path.count == 1 {
                result.append(.value(name, entry.index))
            } else if !nestedNames.contains(name) {
                nestedNames.append(name)
                let below = entries.filter { $0.path.count > 1 && $0.path.first == name }.map { (path: $0.path.dropFirst(), index: $0.index) }
                result.append(.nested(name, members(below)))
            }
        }
        return result
    }

    /// `Person(lastName,Car(make),Total)`.
    static func context(_ set: EntitySet, _ members: [Member]) -> String {
        set.name + "(" + selection(members) + ")"
    }

    private static func selection(_ members: [Member]) -> String {
        members.map { member in
            switch member {
            case .value(let name, _): return name
            case .nested(let name, let below): return name + "(" + selection(below) + ")"
            }
        }.joined(separator: ",")
    }

    func response(_ result: AggregatedRows) -> Response {
        let format = call.jsonFormat
        let members = Self.members(result.columns, written: result.written)
        let serializer = EntitySerializerV4(serviceRoot: call.serviceRoot, format: format)
        var writer = JSONWriter(capacity: 256 + 64 * result.rows.count)
        writer.beginObject()
        if format.metadata != .none {
            writer.key("@odata.context")
            writer.string(call.serviceRoot + "$metadata#" + Self.context(result.set, members))
        }
        if let count = result.count {
            writer.key("@odata.count")
            writer.raw(String(count))
        }
        writer.key("value")
        writer.beginArray()
        for row in result.rows {
            write(row, members, result.columns, serializer: serializer, into: &writer)
        }
        writer.endArray()
        if let next = result.next {
            writer.key("@odata.nextLink")
            writer.string(NextLink.builder(serviceRoot: call.serviceRoot, url: call.url)([.int64(Int64(next.offset))], next.remainingTop))
        }
        writer.endObject()
        return ODataResponse.json(writer.bytes, version: .v4, headRequest: call.isHead, contentType: format.contentType)
    }

    private func write(_ row: [ODataValue], _ members: [Member], _ columns: [ApplyColumn], serializer: EntitySerializerV4,
                       into writer: inout JSONWriter) {
        writer.beginObject()
        for member in members {
            switch member {
            case .value(let name, let index):
                writer.key(name)
                if let property = columns[index].property {
                    serializer.writeValue(row[index], property: property, into: &writer)
                } else {
                    ODataJSON.writeV4(row[index], ieee754Compatible: call.jsonFormat.ieee754Compatible, to: &writer)
                }
            case .nested(let name, let below):
                writer.key(name)
                write(row, below, columns, serializer: serializer, into: &writer)
            }
        }
        writer.endObject()
    }
}
