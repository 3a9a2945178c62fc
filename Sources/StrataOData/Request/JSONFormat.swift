import StrataCore

/// How much control information an OData V4 JSON answer carries, and how it writes numbers, as
/// the client asked in `Accept` or `$format` (`application/json;odata.metadata=full;IEEE754Compatible=true`).
package struct JSONFormat: Sendable, Hashable {
    package enum Metadata: String, Sendable {
        /// `@odata.context`, `@odata.etag`, `@odata.count` and `@odata.nextLink`: what a client
        /// cannot compute from `$metadata`. The default.
        case minimal
        /// Also `@odata.id`, `@odata.editLink`, `@odata.type` and the navigation links of every entity.
        case full
        /// No control information but counts and next links.
        case none
    }

    package var metadata: Metadata = .minimal
    /// Int64 and Decimal values as strings, which JavaScript numbers cannot all hold.
    package var ieee754Compatible = false

    package init(metadata: Metadata = .minimal, ieee754Compatible: Bool = false) {
        self.metadata = metadata
        self.ieee754Compatible = ieee754Compatible
    }

    /// Reads the parameters of the JSON media type in `$format` (which wins) or `Accept`; 400 for
    /// an `odata.metadata` value V4 does not define.
    package static func parse(accept: String?, format: String?) throws(ODataError) -> JSONFormat {
        let source = format ?? accept ?? ""
        // The first JSON media range names the parameters; `Accept` may list others beside it.
        let range = source.split(separator: ",").first { part in
            let type = part.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
            return type == "application/json" || type == "json" || type == "*/*" || type == "application/*"
        } ?? ""
        var result = JSONFormat()
        for parameter in range.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "odata.metadata":
                guard let metadata = Metadata(rawValue: pair[1].lowercased()) else {
                    throw .badRequest("odata.metadata=\(pair[1].prefix(40)) is not minimal, full or none.")
                }
                result.metadata = metadata
            case "ieee754compatible":
                result.ieee754Compatible = pair[1].lowercased() == "true"
            default:
                continue
            }
        }
        return result
    }

    /// The `Content-Type` of an answer written in this format.
    package var contentType: String {
        "application/json;odata.metadata=\(metadata.rawValue);odata.streaming=true;IEEE754Compatible=\(ieee754Compatible)"
    }
}
