import Foundation
import HTTPTypes
import StrataCore

/// The answer to one operation of a batch: an HTTP response written inside a MIME part.
package struct BatchPartResponse: Sendable {
    package var status: HTTPResponse.Status
    package var headers: HTTPFields
    package var body: [UInt8]
    package var contentID: String?

    package init(status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8], contentID: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentID = contentID
    }

    package init(error: ODataError, contentID: String? = nil, version: ODataVersion = .v1) {
        self.init(status: HTTPResponse.Status(code: error.status),
                  headers: [.contentType: ODataResponse.jsonContentType, ODataResponse.versionHeader(version): version.headerValue],
                  body: error.jsonBody(for: version), contentID: contentID)
    }
}

/// Writes a `$batch` response: `multipart/mixed` with one `application/http` part per query and a
/// nested `multipart/mixed` per change set, in request order. A change set that failed is answered
/// by a single `application/http` part carrying the error, as OData V2 prescribes.
package struct BatchResponseWriter {
    private var writer = MultipartMixed.Writer(boundary: MultipartMixed.makeBoundary("batchresponse"))

    package init() {}

    package var contentType: String { writer.contentType }

    package mutating func append(_ part: BatchPartResponse) {
        writePart(part)
    }

    package mutating func append(changeSet parts: [BatchPartResponse]) {
        writer.startChangeSet(boundary: MultipartMixed.makeBoundary("changesetresponse"))
        for part in parts { writePart(part) }
        writer.endChangeSet()
    }

    package mutating func finish() -> [UInt8] {
        writer.finish()
    }

    private mutating func writePart(_ part: BatchPartResponse) {
        writer.startPart()
        writer.writeHeader("Content-Type", "application/http")
        writer.writeHeader("Content-Transfer-Encoding", "binary")
        if let id = part.contentID { writer.writeHeader("Content-ID", id) }
        writer.endHeaders()
        writer.write("HTTP/1.1 \(part.status.code) \(part.status.reasonPhrase)\r\n")
        var headers = part.headers
        headers[.contentLength] = String(part.body.count)
        for field in headers {
            writer.writeHeader(field.name.rawName, field.value)
        }
        writer.endHeaders()
        writer.write(part.body)
        writer.endPart()
    }
}
