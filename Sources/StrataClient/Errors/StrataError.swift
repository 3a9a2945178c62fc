import Foundation
import StrataCore

/// Everything that can go wrong talking to a Strata (or any OData V2) server, as one type.
///
/// ``kind`` says what happened in a form you can switch over; ``status``, ``code`` and ``message``
/// carry what the server said (its OData error code and message), ``underlying`` the error that caused
/// it on this side (a `URLError`, a `DecodingError`). The ``description`` puts it all on one line:
///
/// ```
/// 404 ResourceNotFound: The entity Person(99999) does not exist. (GET http://127.0.0.1:8080/cardealer/Person(99999))
/// ```
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var kind: Kind
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The OData error code from the response body (`ResourceNotFound`, `BadRequest`), when there was one.
    public var code: String?
    /// What went wrong, in words: the server's message, or a description of the local failure.
    public var message: String
    /// The method of the request that failed.
    public var method: StrataRequest.Method?
    /// The URL of the request that failed.
    public var url: URL?
    /// The error behind this one, such as a `URLError` or a `DecodingError`.
    public var underlying: (any Error)?
    /// The complete response, for headers such as `Retry-After` or `WWW-Authenticate`.
    public var response: StrataResponse?
    /// For ``Kind/preconditionFailed``: the entity as the server now has it, fetched after the 412,
    /// so you can merge and retry. Nil when it could not be read (for example because it was deleted).
    public var currentEntity: Entity?

    /// An error of `kind`; the client makes these, and so can your own layers above it.
    public init(
        _ kind: Kind,
        status: Int? = nil,
        code: String? = nil,
        method: StrataRequest.Method? = nil,
        url: URL? = nil,
        message: String,
        underlying: (any Error)? = nil,
        response: StrataResponse? = nil
    ) {
        self.kind = kind
        self.status = status
        self.code = code
        self.method = method
        self.url = url
        self.message = message
        self.underlying = underlying
        self.response = response
    }

    /// The error for an unsuccessful response: the OData error body's code and message when the body
    /// is one, otherwise the start of the body as text.
    public init(response: StrataResponse) {
        let body = [UInt8](response.body)
        if let odata = ODataError.decode(status: response.status, body: body) {
            self.init(Kind(status: response.status), status: response.status, code: odata.code.isEmpty ? nil : odata.code,
                      method: response.request?.method, url: response.url, message: odata.message, response: response)
        } else {
            let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
            var message = text.isEmpty ? "The server answered \(response.status) without a message." : String(text.prefix(500))
            if Kind(status: response.status) == .deltaTokenGone {
                message = "The delta token can no longer be used (\(message)); read the data again and continue from the new token."
            }
            self.init(Kind(status: response.status), status: response.status, method: response.request?.method,
                      url: response.url, message: message, response: response)
        }
    }

    /// The error behind this one in a line, or nil when ``message`` already says all of it: a
    /// URL-loading error's message is made from it, and its own description is a dictionary dump.
    static func detail(of error: any Error) -> String? {
        (error as NSError).domain == NSURLErrorDomain ? nil : String(describing: error)
    }

    public var description: String {
        var text = ""
        if let status { text += "\(status) " }
        if let code { text += "\(code): " } else if status == nil { text += "\(kind): " }
        text += message
        if let underlying, status == nil, let detail = Self.detail(of: underlying), !message.contains(detail) {
            text += " (\(detail))"
        }
        if let url {
            text += " (" + (method.map { "\($0) " } ?? "") + url.absoluteString + ")"
        }
        return text
    }
}
