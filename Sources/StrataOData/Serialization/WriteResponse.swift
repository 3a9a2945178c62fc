import HTTPTypes
import Hummingbird
import StrataCore

/// Writes what a write did (``WriteResult``): 201 with the created entity tree and its `Location`,
/// or 204 with the new ETag. The same parts make a response or a `$batch` part.
package struct WriteResponse {
    let call: ODataCall

    package init(call: ODataCall) {
        self.call = call
    }

    package struct Parts: Sendable {
        package var status: HTTPResponse.Status
        package var headers: HTTPFields
        package var body: [UInt8]
    }

    package func parts(_ result: WriteResult) -> Parts {
        if call.version.isV4 { return partsV4(result) }
        switch result {
        case .created(let entity, let shape, let tag, let entityPath):
            var json = JSONWriter()
            json.beginObject()
            json.key("d")
            EntitySerializer(serviceRoot: call.serviceRoot, version: call.version).write(entity, shape: shape, tag: tag, into: &json)
            json.endObject()
            // Appended rather than set by name (a search per field), with room for Content-Length, Date and Server.
            var headers = HTTPFields()
            headers.reserveCapacity(7)
            headers.append(contentsOf: [
                HTTPField(name: .contentType, value: ODataResponse.jsonContentType),
                HTTPField(name: ODataResponse.dataServiceVersion, value: call.version.headerValue),
                HTTPField(name: .location, value: call.serviceRoot + entityPath),
                HTTPField(name: .eTag, value: tag.headerValue),
            ])
            return Parts(status: .created, headers: headers, body: json.bytes)
        case .noContent(let etag, _):
            var headers: HTTPFields = [ODataResponse.dataServiceVersion: ODataVersion.v1.headerValue]
            if let etag { headers[.eTag] = etag.headerValue }
            return Parts(status: .noContent, headers: headers, body: [])
        }
    }

    /// V4: 201 with the created entity in V4 JSON, or 204 with `OData-EntityId` when the client
    /// prefers `return=minimal`; 204 for changes and deletions.
    private func partsV4(_ result: WriteResult) -> Parts {
        var headers = HTTPFields()
        headers.reserveCapacity(8)
        headers.append(HTTPField(name: ODataResponse.odataVersion, value: ODataVersion.v4.headerValue))
        switch result {
        case .created(let entity, let shape, let tag, let entityPath):
            let id = call.serviceRoot + entityPath
            headers.append(HTTPField(name: .location, value: id))
            headers.append(HTTPField(name: .eTag, value: tag.headerValue))
            if Self.prefersMinimal(call.headers) {
                headers.append(HTTPField(name: ODataResponse.odataEntityID, value: id))
                headers.append(HTTPField(name: DeltaRequest.preferenceAppliedHeader, value: "return=minimal"))
                return Parts(status: .noContent, headers: headers, body: [])
            }
            var json = JSONWriter()
            EntitySerializerV4(serviceRoot: call.serviceRoot, format: call.jsonFormat)
                .write(entity, shape: shape, tag: tag, context: ContextURL.entity(serviceRoot: call.serviceRoot, shape: shape), into: &json)
            headers.append(HTTPField(name: .contentType, value: call.jsonFormat.contentType))
            return Parts(status: .created, headers: headers, body: json.bytes)
        case .noContent(let etag, _):
            if let etag { headers.append(HTTPField(name: .eTag, value: etag.headerValue)) }
            return Parts(status: .noContent, headers: headers, body: [])
        }
    }

    /// `Prefer: return=minimal` (among other preferences).
    static func prefersMinimal(_ headers: HTTPFields) -> Bool {
        headers.preferences.contains("return=minimal")
    }

    package func response(_ result: WriteResult) -> Response {
        let parts = parts(result)
        if parts.status == .noContent {
            return Response(status: parts.status, headers: parts.headers, body: ResponseBody())
        }
        return ODataResponse.body(parts.body, status: parts.status, headers: parts.headers, headRequest: false)
    }
}
