import HTTPTypes
import StrataCore

/// What the stages after parsing need of the request's headers, read here so that none of them
/// looks at HTTP: conditions on entity versions, the page size a client prefers and the body's media type.
extension ODataCall {
    /// `If-Match`, parsed; nil when absent. 400 when malformed.
    package func ifMatch() throws(ODataError) -> EntityTagCondition? {
        try EntityTagCondition.parse(headers[.ifMatch], name: "If-Match")
    }

    /// `If-Match` as the client sent it, for messages.
    package var ifMatchText: String { headers[.ifMatch] ?? "" }

    /// `If-None-Match`, parsed; nil when absent. 400 when malformed.
    package func ifNoneMatch() throws(ODataError) -> EntityTagCondition? {
        try EntityTagCondition.parse(headers[.ifNoneMatch], name: "If-None-Match")
    }

    /// `Prefer: odata.maxpagesize=N`: the most entities the client wants on a page; nil when it
    /// names none or a value that is not a positive number (a preference the server cannot read
    /// is ignored, as RFC 7240 says).
    package var preferredMaxPageSize: Int? {
        guard let value = headers.preferenceTokens.last(where: { $0.name == "odata.maxpagesize" })?.value,
              let size = Int(value), size > 0 else { return nil }
        return size
    }

    /// The body's media type, lowercased, without parameters (`application/json`); nil when the
    /// request names none.
    package var bodyMediaType: String? {
        guard let contentType = headers[.contentType]?.lowercased() else { return nil }
        return contentType.split(separator: ";").first.map { String($0).trimmingWhitespace() } ?? ""
    }

    /// Whether a body of `mediaType` is read as JSON: `application/json`, any `…+json`, and
    /// `text/plain` (what some clients send for JSON).
    package static func readsAsJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json") || mediaType == "text/plain"
    }
}
