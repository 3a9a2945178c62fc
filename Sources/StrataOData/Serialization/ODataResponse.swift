import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore
import StrataStorage

/// Builders for the responses OData clients expect.
package enum ODataResponse {
    package static let jsonContentType = "application/json;charset=utf-8"
    package static let xmlContentType = "application/xml;charset=utf-8"
    static let textContentType = "text/plain;charset=utf-8"

    package static let dataServiceVersion = HTTPField.Name("DataServiceVersion")!
    package static let maxDataServiceVersion = HTTPField.Name("MaxDataServiceVersion")!
    package static let odataVersion = HTTPField.Name("OData-Version")!
    package static let odataMaxVersion = HTTPField.Name("OData-MaxVersion")!
    /// V4: the id of the entity a write created, when its answer carries no body.
    package static let odataEntityID = HTTPField.Name("OData-EntityId")!

    /// The header that states an answer's version: `DataServiceVersion` up to V2, `OData-Version` in V4.
    package static func versionHeader(_ version: ODataVersion) -> HTTPField.Name {
        version.isV4 ? odataVersion : dataServiceVersion
    }

    /// A JSON answer. `eTag` is the entity tag of a single entity's answer, quoted.
    package static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, version: ODataVersion?, headRequest: Bool = false,
                     eTag: String? = nil, extraHeaders: HTTPFields = [:], contentType: String = jsonContentType) -> Response {
        // Collected first and added in one call: `HTTPFields`' subscript looks for fields of the same
        // name to replace, and its `append` is a generic range replacement per field; together a
        // measurable share of a GET by key.
        var fields: [HTTPField] = []
        fields.reserveCapacity(extraHeaders.count + 4)
        fields.append(HTTPField(name: .contentType, value: contentType))
        if let version { fields.append(HTTPField(name: versionHeader(version), value: version.headerValue)) }
        if let eTag { fields.append(HTTPField(name: .eTag, value: eTag)) }
        fields.append(contentsOf: extraHeaders)
        fields.append(HTTPField(name: .contentLength, value: String(bytes.count)))
        // Room for the two fields Hummingbird adds to every response (Date, Server) without growing.
        var headers = HTTPFields()
        headers.reserveCapacity(fields.count + 2)
        headers.append(contentsOf: fields)
        return Response(status: status, headers: headers, body: body(bytes, headRequest: headRequest))
    }

    /// An answer with `bytes` as its body (none for HEAD) and their length; `headers` must not hold a
    /// `Content-Length` already.
    package static func body(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields, headRequest: Bool) -> Response {
        var headers = headers
        headers.append(HTTPField(name: .contentLength, value: String(bytes.count)))
        return Response(status: status, headers: headers, body: body(bytes, headRequest: headRequest))
    }

    private static func body(_ bytes: [UInt8], headRequest: Bool) -> ResponseBody {
        headRequest ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
    }

    /// A streamed answer: `first` (read before the response started, so that errors could still
    /// get a status) and then whatever `rest` produces, without a `Content-Length`.
    ///
    /// The body is written after the handler returned, outside the request's task-local values; the
    /// request's ``StatementLimits`` are carried over so that the rest is read under the same limits.
    package static func streamed<Stream: ChunkedBody>(first: [UInt8], rest: Stream, headers: HTTPFields) -> Response {
        streamed(first: Optional(first), rest: rest, headers: headers)
    }

    /// A streamed answer whose first bytes come from the stream too (its first rows were read
    /// before the response started).
    static func streamed<Stream: ChunkedBody>(_ stream: Stream, headers: HTTPFields) -> Response {
        streamed(first: nil, rest: stream, headers: headers)
    }

    private static func streamed<Stream: ChunkedBody>(first: [UInt8]?, rest: Stream, headers: HTTPFields) -> Response {
        let limits = StatementLimits.current
        let body = ResponseBody { writer in
            try await StatementLimits.$current.withValue(limits) {
                var stream = rest
                if let first { try await writer.write(ByteBuffer(bytes: first)) }
                while let bytes = try await stream.nextBytes() {
                    if !bytes.isEmpty { try await writer.write(ByteBuffer(bytes: bytes)) }
                }
                try await writer.finish(nil)
            }
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// An error answer, in the error format of `version` (V1's headers unless the call is V4).
    package static func error(_ error: ODataError, headRequest: Bool = false, version: ODataVersion = .v1) -> Response {
        var headers: HTTPFields = [.contentType: jsonContentType, versionHeader(version): version.headerValue]
        if error.status == 405 { headers[.allow] = "GET, HEAD, POST, PUT, PATCH, MERGE, DELETE" }
        // A caller over its share of queries may try again as soon as one of them has finished.
        if error.status == 429 { headers[.retryAfter] = "1" }
        // The database is away (a failover under way, an outage): the server checks every second.
        if error.status == 503 { headers[.retryAfter] = "1" }
        return body(error.jsonBody(for: version), status: HTTPResponse.Status(code: error.status), headers: headers, headRequest: headRequest)
    }
}

/// A response body produced piece by piece, such as a collection read in keyset chunks.
package protocol ChunkedBody: Sendable {
    /// The next bytes of the body, or nil when it is complete.
    mutating func nextBytes() async throws -> [UInt8]?
}
