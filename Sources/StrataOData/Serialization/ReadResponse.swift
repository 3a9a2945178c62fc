import HTTPTypes
import Hummingbird
import StrataCore

/// Writes what a read found (``ReadResult``) as OData V2 verbose JSON — `{"d":…}` — or as text for
/// `$value` and `$count`, and makes the response: whole for single values, streamed for collections.
/// A V4 call's answer is written by ``ReadResponseV4``.
package struct ReadResponse {
    let call: ODataCall
    /// The path read: where V4's context URL of a property points.
    let path: ResolvedPath?

    package init(call: ODataCall, path: ResolvedPath? = nil) {
        self.call = call
        self.path = path
    }

    private var version: ODataVersion { call.version }
    private var serializer: EntitySerializer { EntitySerializer(serviceRoot: call.serviceRoot, version: version) }

    /// What a tracked read (`Prefer: odata.track-changes`) adds to a collection: `!deltastart` in
    /// its `__next` links and the `__delta` link on its last page.
    package struct Tracking: Sendable {
        var start: String
        var deltaLink: String

        package init(start: String, deltaLink: String) {
            self.start = start
            self.deltaLink = deltaLink
        }
    }

    package func response(_ result: ReadResult, tracking: Tracking? = nil) -> Response {
        if version.isV4 { return ReadResponseV4(call: call, path: path).response(result, tracking: tracking) }
        switch result {
        case .entity(let entity, let shape, let tag):
            // An entity with its metadata and deferred links outgrows the default 256 bytes; growing twice
            // cost more than the larger buffer.
            var writer = JSONWriter(capacity: 1024)
            writer.beginObject()
            writer.key("d")
            serializer.write(entity, shape: shape, tag: tag, into: &writer)
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: version, headRequest: call.isHead, eTag: tag?.headerValue)
        case .notModified(let tag):
            return EntityTag.notModifiedResponse(tag)
        case .entities(let rows, let shape):
            let serializer = self.serializer
            return stream(rows, tracking: tracking) { row, writer in serializer.write(row, shape: shape, into: &writer) }
        case .property(let value, let property):
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("d")
            writer.beginObject()
            writer.key(property.name)
            serializer.writeValue(value, property: property, into: &writer)
            writer.endObject()
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: version, headRequest: call.isHead)
        case .rawValue(let value):
            return RawValue.response(value, version: version, headRequest: call.isHead)
        case .count(let count):
            return ODataResponse.body(Array(String(count).utf8),
                                      headers: [.contentType: ODataResponse.textContentType, ODataResponse.dataServiceVersion: ODataVersion.v2.headerValue],
                                      headRequest: call.isHead)
        case .link(let row, let shape):
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("d")
            Self.link(root: call.serviceRoot, shape: shape)(row, &writer)
            writer.endObject()
            return ODataResponse.json(writer.bytes, version: version, headRequest: call.isHead)
        case .aggregated:
            // `$apply` is parsed for V4 calls only, whose answers ReadResponseV4 writes.
            return ReadResponseV4(call: call, path: path).response(result, tracking: tracking)
        case .links(let rows, let shape):
            return stream(rows, writeRow: Self.link(root: call.serviceRoot, shape: shape))
        }
    }

    /// `{"uri":…}` of one linked entity.
    private static func link(root: String, shape: EntityShape) -> @Sendable (EntityRow, inout JSONWriter) -> Void {
        { row, writer in
            writer.beginObject()
            writer.key("uri")
            writer.string(root + shape.relativeURI(row.values))
            writer.endObject()
        }
    }

    /// A collection, written as its rows arrive, with server-driven paging.
    private func stream(_ rows: CollectionRows, tracking: Tracking? = nil,
                        writeRow: @escaping @Sendable (EntityRow, inout JSONWriter) -> Void) -> Response {
        var headers: HTTPFields = [.contentType: ODataResponse.jsonContentType, ODataResponse.versionHeader(version): version.headerValue]
        headers[DeltaRequest.preferenceAppliedHeader] = Self.preferencesApplied(rows, tracking: tracking)
        if call.isHead { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        headers[.contentLength] = nil
        var stream = CollectionStream(rows: rows, framing: CollectionStream.Framing(version, context: nil), writeRow: writeRow,
                                      nextLink: NextLink.builder(serviceRoot: call.serviceRoot, url: call.url,
                                                                 extra: tracking.map { (DeltaRequest.deltaStartOption, $0.start) }))
        stream.deltaLink = tracking?.deltaLink
        return ODataResponse.streamed(stream, headers: headers)
    }

    /// `Preference-Applied` of a collection: `odata.track-changes` for a tracked read,
    /// `odata.maxpagesize=N` when the client's page size was used; nil when neither.
    static func preferencesApplied(_ rows: CollectionRows, tracking: Tracking?) -> String? {
        var applied: [String] = []
        if tracking != nil { applied.append(DeltaRequest.trackChanges) }
        if rows.limits.preferredPageSizeApplied, let size = rows.limits.pageSize { applied.append("odata.maxpagesize=\(size)") }
        return applied.isEmpty ? nil : applied.joined(separator: ", ")
    }
}
