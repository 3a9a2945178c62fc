/// An error as OData reports it: an HTTP status, a machine-readable code and a message for people.
///
/// The server throws these for every refusal and renders them as
/// `{"error":{"code":"…","message":{"lang":"en-US","value":"…"}}}` (V1 and V2) or
/// `{"error":{"code":"…","message":"…"}}` (V4); the client decodes either body back.
public struct ODataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code, for example 404.
    public var status: Int
    /// What went wrong and, where it helps, what to do instead.
    public var message: String
    /// The code and the target, held by reference: the parsers throw these through every level of
    /// their recursion, each caller keeps room for one in its frame, and 512 KiB (an iOS secondary
    /// thread's stack) must hold the deepest query the limits allow (QueryLimitsTests). So the
    /// error stays four words wide.
    private var details: Details

    private final class Details: Sendable {
        let code: String
        let target: String?

        init(code: String, target: String?) {
            self.code = code
            self.target = target
        }
    }

    /// A short identifier such as `ResourceNotFound`.
    public var code: String {
        get { details.code }
        set { details = Details(code: newValue, target: details.target) }
    }

    /// What the error is about when it is one property of the request's body (its name), which V4
    /// error bodies carry as `target`, so that a form can show the message beside the field.
    public var target: String? {
        get { details.target }
        set { details = Details(code: details.code, target: newValue) }
    }

    public init(status: Int, code: String, message: String, target: String? = nil) {
        self.status = status
        self.message = message
        self.details = Details(code: code, target: target)
    }

    public static func == (lhs: ODataError, rhs: ODataError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message && lhs.target == rhs.target
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(target)
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ message: String, code: String = "BadRequest", target: String? = nil) -> ODataError {
        ODataError(status: 400, code: code, message: message, target: target)
    }

    public static func notFound(_ message: String) -> ODataError {
        ODataError(status: 404, code: "ResourceNotFound", message: message)
    }

    public static func methodNotAllowed(_ message: String) -> ODataError {
        ODataError(status: 405, code: "MethodNotAllowed", message: message)
    }

    public static func notAcceptable(_ message: String) -> ODataError {
        ODataError(status: 406, code: "NotAcceptable", message: message)
    }

    public static func unsupportedMediaType(_ message: String) -> ODataError {
        ODataError(status: 415, code: "UnsupportedMediaType", message: message)
    }

    public static func serviceUnavailable(_ message: String) -> ODataError {
        ODataError(status: 503, code: "ServiceUnavailable", message: message)
    }

    public static func internalError(_ message: String = "The server could not complete the request; the error has been logged.") -> ODataError {
        ODataError(status: 500, code: "InternalError", message: message)
    }

    /// The OData V1/V2 JSON error body: `{"error":{"code":"…","message":{"lang":"en-US","value":"…"}}}`.
    public var jsonBody: [UInt8] { jsonBody(for: .v2) }

    /// The OData V4 JSON error body: `{"error":{"code":"…","message":"…","target"?:"…"}}`.
    public var jsonBodyV4: [UInt8] { jsonBody(for: .v4) }

    /// The error body in the JSON of `version`: V4's message is a string, earlier versions' an
    /// object with its language.
    public func jsonBody(for version: ODataVersion) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        writer.key("message")
        if version.isV4 {
            writer.string(message)
            if let target {
                writer.key("target")
                writer.string(target)
            }
        } else {
            writer.beginObject()
            writer.key("lang")
            writer.string("en-US")
            writer.key("value")
            writer.string(message)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// Reads an OData error body (JSON); nil when the bytes are not one.
    public static func decode(status: Int, body: [UInt8]) -> ODataError? {
        guard case .object(let root)? = try? JSONValue.parse(body),
              case .object(let error)? = root["error"] else { return nil }
        let code = error["code"]?.stringValue ?? ""
        let message: String
        switch error["message"] {
        case .object(let m)?: message = m["value"]?.stringValue ?? ""
        case .string(let s)?: message = s
        default: message = ""
        }
        return ODataError(status: status, code: code, message: message, target: error["target"]?.stringValue)
    }
}
