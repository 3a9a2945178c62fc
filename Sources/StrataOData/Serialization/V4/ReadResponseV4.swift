import HTTPTypes
import Hummingbird
import StrataCore

/// Writes what a read found (``ReadResult``) as OData V4 JSON in the client's ``JSONFormat``, or as
/// text for `$value` and `$count`: whole for single values, streamed for collections, as in V2.
struct ReadResponseV4 {
    let call: ODataCall
    let path: ResolvedPath?

    private var format: JSONFormat { call.jsonFormat }
    private var serializer: EntitySerializerV4 { EntitySerializerV4(serviceRoot: call.serviceRoot, format: format) }
    private var withContext: Bool { format.metadata != .none }

    func response(_ result: ReadResult, tracking: ReadResponse.Tracking?) -> Response {
        switch result {
        case .entity(let entity, let shape, let tag):
            var writer = JSONWriter(capacity: 1024)
            serializer.write(entity, shape: shape, tag: tag,
                             context: ContextURL.entity(serviceRoot: call.serviceRoot, shape: shape), into: &writer)
            return json(writer.bytes, eTag: tag?.headerValue)
        case .notModified(let tag):
            return EntityTag.notModifiedResponse(tag)
        case .entities(let rows, let shape):
            let serializer = self.serializer
            return stream(rows, context: ContextURL.collection(serviceRoot: call.serviceRoot, shape: shape), tracking: tracking) { row, writer in
                serializer.write(row, shape: shape, into: &writer)
            }
        case .property(let value, let property):
            // V4 answers a null property with 204 and no body.
            if value.isNull {
                return Response(status: .noContent, headers: [ODataResponse.odataVersion: ODataVersion.v4.headerValue])
            }
            var writer = JSONWriter()
            writer.beginObject()
            if withContext {
                writer.key("@odata.context")
                writer.string(path.map { ContextURL.property(serviceRoot: call.serviceRoot, path: $0, property: property) }
                              ?? call.serviceRoot + "$metadata#" + property.type.v4Name)
            }
            writer.key("value")
            serializer.writeValue(value, property: property, into: &writer)
            writer.endObject()
            return json(writer.bytes)
        case .rawValue(let value):
            return RawValue.response(value, version: .v4, headRequest: call.isHead)
        case .count(let count):
            return ODataResponse.body(Array(String(count).utf8),
                                      headers: [.contentType: ODataResponse.textContentType, ODataResponse.odataVersion: ODataVersion.v4.headerValue],
                                      headRequest: call.isHead)
        case .link(let row, let shape):
            var writer = JSONWriter()
            writer.beginObject()
            if withContext {
                writer.key("@odata.context")
                writer.string(ContextURL.references(serviceRoot: call.serviceRoot, single: true))
            }
            writer.key("@odata.id")
            writer.string(call.serviceRoot + shape.relativeURI(row.values))
            writer.endObject()
            return json(writer.bytes)
        case .aggregated(let rows):
            return AggregateResponseV4(call: call).response(rows)
        case .links(let rows, let shape):
            let root = call.serviceRoot
            return stream(rows, context: ContextURL.references(serviceRoot: root, single: false), tracking: nil) { row, writer in
                writer.beginObject()
                writer.key("@odata.id")
                writer.string(root + shape.relativeURI(row.values))
                writer.endObject()
            }
        }
    }

    private func json(_ bytes: [UInt8], eTag: String? = nil) -> Response {
        ODataResponse.json(bytes, version: .v4, headRequest: call.isHead, eTag: eTag, contentType: format.contentType)
    }

    /// A collection, written as its rows arrive, with server-driven paging.
    private func stream(_ rows: CollectionRows, context: String, tracking: ReadResponse.Tracking?,
                        writeRow: @escaping @Sendable (EntityRow, inout JSONWriter) -> Void) -> Response {
        var headers: HTTPFields = [.contentType: format.contentType, ODataResponse.odataVersion: ODataVersion.v4.headerValue]
        headers[DeltaRequest.preferenceAppliedHeader] = ReadResponse.preferencesApplied(rows, tracking: tracking)
        if call.isHead { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        var stream = CollectionStream(rows: rows, framing: .v4(context: withContext ? context : nil), writeRow: writeRow,
                                      nextLink: NextLink.builder(serviceRoot: call.serviceRoot, url: call.url,
                                                                 extra: tracking.map { (DeltaRequest.deltaStartOption, $0.start) }))
        stream.deltaLink = tracking?.deltaLink
        return ODataResponse.streamed(stream, headers: headers)
    }
}
