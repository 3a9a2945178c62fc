import HTTPTypes
import Hummingbird
import StrataCore
import StrataOData

/// The headers that describe a blob in every answer about it: what it is, which version, when.
enum BlobHeaders {
    static func describing(_ blob: BlobRecord) -> HTTPFields {
        [.eTag: blob.etag, .lastModified: HTTPDate.format(BlobConditions.seconds(blob))]
    }

    /// The path of a blob, each byte that a path may not hold percent-encoded (`/` stays).
    static func path(container: String, name: String) -> String {
        "\(BlobTarget.prefix)/\(container)/\(PercentEncoding.encodeQueryValue(name))"
    }

    /// 304: only what identifies the version the client has.
    static func notModified(_ blob: BlobRecord) -> Response {
        Response(status: .notModified, headers: describing(blob), body: ResponseBody())
    }

    /// 416 with `Content-Range: bytes */size`, which tells the client the blob's length.
    static func rangeNotSatisfiable(_ error: ODataError, blob: BlobRecord, headRequest: Bool) -> Response {
        var response = ODataResponse.error(error, headRequest: headRequest)
        response.headers[.contentRange] = "bytes */\(blob.size)"
        response.headers[.acceptRanges] = "bytes"
        return response
    }

    /// 405 naming the methods the resource does take.
    static func methodNotAllowed(_ method: HTTPRequest.Method, allowed: String, resource: String) -> Response {
        var response = ODataResponse.error(.methodNotAllowed("\(method.rawValue) is not supported on \(resource); use \(allowed)."))
        response.headers[.allow] = allowed
        return response
    }
}
