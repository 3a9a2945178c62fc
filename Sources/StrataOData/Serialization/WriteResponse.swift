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

    package func response(_ result: WriteResult) -> Response {
        let parts = parts(result)
        if parts.status == .noContent {
            return Response(status: parts.status, headers: parts.headers, body: ResponseBody())
        }
        return ODataResponse.body(parts.body, status: parts.status, headers: parts.headers, headRequest: false)
    }
}
