import StrataCore

/// Decides the response's protocol version and checks that the client accepts what Strata writes.
package enum ContentNegotiation {
    /// The request's headers and options that speak of the protocol version.
    package struct VersionRequest: Sendable {
        /// `MaxDataServiceVersion` and `DataServiceVersion` (V1 and V2).
        package var maxDataServiceVersion: String?
        package var dataServiceVersion: String?
        /// `OData-MaxVersion` and `OData-Version` (V4).
        package var odataMaxVersion: String?
        package var odataVersion: String?
        /// `Accept` and `$format`: `odata.metadata=…` in either asks for V4.
        package var accept: String?
        package var format: String?

        package init(maxDataServiceVersion: String? = nil, dataServiceVersion: String? = nil, odataMaxVersion: String? = nil,
                     odataVersion: String? = nil, accept: String? = nil, format: String? = nil) {
            (self.maxDataServiceVersion, self.dataServiceVersion) = (maxDataServiceVersion, dataServiceVersion)
            (self.odataMaxVersion, self.odataVersion, self.accept, self.format) = (odataMaxVersion, odataVersion, accept, format)
        }

        /// The client says it reads V4: `OData-MaxVersion` or `OData-Version` of 4.0 or more, or
        /// V4's `odata.metadata` parameter on the media type it accepts.
        package var asksForV4: Bool {
            if let max = odataMaxVersion.flatMap(ODataVersion.parseHeader) { return max >= 4 }
            if let stated = odataVersion.flatMap(ODataVersion.parseHeader), stated >= 4 { return true }
            return [accept, format].contains { $0?.lowercased().contains("odata.metadata=") == true }
        }

        /// The client says which of V1 and V2 it reads: the highest it names, if it names one.
        var v2Family: ODataVersion? {
            if let max = maxDataServiceVersion.flatMap(ODataVersion.parseHeader) { return max < 2 ? .v1 : .v2 }
            if let stated = dataServiceVersion.flatMap(ODataVersion.parseHeader), stated < 2 { return .v1 }
            return nil
        }
    }

    /// The version of the answer. V4 when the client asks for it (`OData-MaxVersion: 4.0`,
    /// `OData-Version: 4.0` or `odata.metadata=` in `Accept` or `$format`) — also when it names V2's
    /// headers as well, as Power Query does: the highest version both sides speak wins. Else V1
    /// when the client says it reads at most 1.0 (`MaxDataServiceVersion: 1.0`, or only
    /// `DataServiceVersion: 1.0`), V2 when it names V2's headers. A client that names no version
    /// gets the service's default (`defaultVersion`, V2 unless the service was set to V4) — never
    /// above the V1/V2 maximum of its model file (`serviceMaximum`) when that default is V2.
    package static func version(_ request: VersionRequest, serviceDefault: ODataVersion = .v2,
                                serviceMaximum: ODataVersion = .v2) -> ODataVersion {
        if request.asksForV4 { return .v4 }
        if let family = request.v2Family {
            return Swift.min(family, serviceMaximum)
        }
        if serviceDefault == .v4 { return .v4 }
        // A service whose model file says `maxProtocolVersion: 1.0` answers OData 1.0 clients that
        // send no version header at all (the CarDealer sample's app) as they expect.
        return Swift.min(serviceDefault, serviceMaximum)
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
