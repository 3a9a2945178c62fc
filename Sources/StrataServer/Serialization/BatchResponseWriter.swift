import Foundation
import HTTPTypes
import StrataCore

/// The answer to one operation of a batch: an HTTP response written inside a MIME part.
struct BatchPartResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: [UInt8]
    var contentID: String?

    init(status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8], contentID: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentID = contentID
    }

    init(error: ODataError, contentID: String? = nil) {
        self.init(status: HTTPResponse.Status(code: error.status),
                  headers: [.contentType: ODataResponse.jsonContentType, ODataResponse.dataServiceVersion: ODataVersion.v1.headerValue],
                  body: error.jsonBody, contentID: contentID)
    }
}

/// Writes a `$batch` response: `multipart/mixed` with one `application/http` part per query and a
/// nested `multipart/mixed` per change set, in request order. A change set that failed is answered
/// by a single `application/http` part carrying the error, as OData V2 prescribes.
struct BatchResponseWriter {
    let boundary = "batchresponse_" + UUID().uuidString.lowercased()
    private(set) var bytes: [UInt8] = []

    var contentType: String { "multipart/mixed; boundary=\(boundary)" }

    mutating func append(_ part: BatchPartResponse) {
        write("--\(boundary)\r\n")
        writePart(part)
    }

    mutating func append(changeSet parts: [BatchPartResponse]) {
        let inner = "changesetresponse_" + UUID().uuidString.lowercased()
        write("--\(boundary)\r\nContent-Type: multipart/mixed; boundary=\(inner)\r\n\r\n")
        for part in parts {
            write("--\(inner)\r\n")
            writePart(part)
        }
        write("--\(inner)--\r\n")
    }

    mutating func finish() -> [UInt8] {
        write("--\(boundary)--\r\n")
        return bytes
    }

    private mutating func writePart(_ part: BatchPartResponse) {
        write("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n")
        if let id = part.contentID { write("Content-ID: \(id)\r\n") }
        write("\r\nHTTP/1.1 \(part.status.code) \(part.status.reasonPhrase)\r\n")
        var headers = part.headers
        headers[.contentLength] = String(part.body.count)
        for field in headers {
            write("\(field.name.rawName): \(field.value)\r\n")
        }
        write("\r\n")
        bytes.append(contentsOf: part.body)
        write("\r\n")
    }

    private mutating func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
