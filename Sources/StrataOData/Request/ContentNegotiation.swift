import StrataCore

/// Decides the response's protocol version and checks that the client accepts what Strata writes.
package enum ContentNegotiation {
    /// V1 when the client says it understands at most 1.0 (`MaxDataServiceVersion: 1.0`), or sends only
    /// `DataServiceVersion: 1.0` without a maximum; V2 otherwise — never above the service's maximum.
    package static func version(maxVersionHeader: String?, versionHeader: String?, serviceMaximum: ODataVersion = .v2) -> ODataVersion {
        if let max = maxVersionHeader.flatMap(ODataVersion.parseHeader) {
            return Swift.min(max < 2 ? .v1 : .v2, serviceMaximum)
        }
        if let stated = versionHeader.flatMap(ODataVersion.parseHeader), stated < 2 {
            return .v1
        }
        // A service whose model file says `maxProtocolVersion: 1.0` answers OData 1.0 clients that
        // send no version header at all (the CarDealer sample's app) as they expect.
        return serviceMaximum
    }

    /// Data responses are JSON. `$format` wins over `Accept`; anything but JSON is refused with 406
    /// naming what is supported.
    package static func requireJSON(accept: String?, format: String?) throws(ODataError) {
        if let format {
            guard format.lowercased() == "json" || format.lowercased().hasPrefix("application/json") else {
                throw .notAcceptable("$format=\(format) is not supported; Strata answers data requests in JSON ($format=json, application/json), and $metadata in XML.")
            }
            return
        }
        guard let accept, !accept.isEmpty else { return }
        let ranges = mediaRanges(accept)
        let acceptsJSON = ranges.contains { range in
            range.quality > 0 && (range.type == "application/json" || range.type == "application/*" || range.type == "*/*")
        }
        guard acceptsJSON else {
            throw .notAcceptable("The Accept header (\(accept.prefix(100))) excludes JSON; Strata answers data requests in JSON (application/json), and $metadata in XML.")
        }
    }

    /// Whether the client prefers XML to JSON (AtomPub clients asking for the service document).
    package static func prefersXML(accept: String?) -> Bool {
        guard let accept else { return false }
        let ranges = mediaRanges(accept)
        let xml = ranges.filter { $0.type.hasSuffix("/xml") || $0.type.hasSuffix("+xml") }.map(\.quality).max() ?? 0
        let json = ranges.filter { $0.type == "application/json" }.map(\.quality).max() ?? 0
        return xml > json
    }

    struct MediaRange {
        var type: String
        var quality: Double
    }

    static func mediaRanges(_ header: String) -> [MediaRange] {
        header.split(separator: ",").map { part in
            let pieces = part.split(separator: ";").map { $0.trimmingWhitespace() }
            var quality = 1.0
            for parameter in pieces.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 1
            }
            return MediaRange(type: (pieces.first ?? "").lowercased(), quality: quality)
        }
    }
}

private extension Substring {
    func trimmingWhitespace() -> String { String(self).trimmingWhitespace() }
}
