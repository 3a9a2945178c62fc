import HTTPTypes
import Hummingbird
import NIOCore
import StrataCore

/// Builders for the responses OData clients expect.
enum ODataResponse {
    static let jsonContentType = "application/json;charset=utf-8"
    static let xmlContentType = "application/xml;charset=utf-8"
    static let textContentType = "text/plain;charset=utf-8"

    static let dataServiceVersion = HTTPField.Name("DataServiceVersion")!
    static let maxDataServiceVersion = HTTPField.Name("MaxDataServiceVersion")!

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, version: ODataVersion?, headRequest: Bool = false,
                     extraHeaders: HTTPFields = [:]) -> Response {
        var headers = extraHeaders
        headers[.contentType] = jsonContentType
        if let version { headers[dataServiceVersion] = version.headerValue }
        return body(bytes, status: status, headers: headers, headRequest: headRequest)
    }

    static func body(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields, headRequest: Bool) -> Response {
        var headers = headers
        headers[.contentLength] = String(bytes.count)
        let body: ResponseBody = headRequest ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        return Response(status: status, headers: headers, body: body)
    }

    static func error(_ error: ODataError, headRequest: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: jsonContentType, dataServiceVersion: ODataVersion.v1.headerValue]
        if error.status == 405 { headers[.allow] = "GET, HEAD, POST, PUT, PATCH, MERGE, DELETE" }
        return body(error.jsonBody, status: HTTPResponse.Status(code: error.status), headers: headers, headRequest: headRequest)
    }
}
