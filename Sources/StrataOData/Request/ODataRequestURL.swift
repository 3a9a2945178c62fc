import StrataCore

/// The parts of an OData request URL: the service, the resource path below it, and the query options.
package struct ODataRequestURL: Sendable {
    var serviceName: String
    package var path: ResourcePath
    /// Query options as sent, in order, percent-decoded.
    package var queryItems: [QueryItem]
    /// The query string as sent, still percent-encoded.
    package var rawQuery: String

    package struct QueryItem: Sendable, Hashable {
        package var name: String
        package var value: String
    }

    /// Parses a raw request path (`/cardealer/Person(1)`) and raw query string.
    ///
    /// Slashes, ampersands and equals signs are found among UTF-8 bytes: they are ASCII, and ASCII
    /// bytes never occur inside a multi-byte character.
    package init(rawPath: String, rawQuery: String?) throws(ODataError) {
        let serviceSegment = Self.firstSegment(of: rawPath)
        serviceName = try Self.serviceName(rawPath: rawPath)
        let serviceEnd = serviceSegment.upperBound
        let rest = serviceEnd < rawPath.endIndex ? rawPath[rawPath.utf8.index(after: serviceEnd)...] : ""
        self.path = try ResourcePath.parse(rest)
        self.rawQuery = rawQuery ?? ""
        queryItems = try Self.parseQuery(rawQuery ?? "")
    }

    /// The service a raw path names (its first segment, percent-decoded), read before the rest of
    /// the URL: the caller's rights in the service are decided before anything else is looked at.
    package static func serviceName(rawPath: String) throws(ODataError) -> String {
        guard let service = PercentEncoding.decode(rawPath[firstSegment(of: rawPath)]) else {
            throw .badRequest("The service name in the URL has an invalid percent escape.")
        }
        return service
    }

    /// Where the first segment of a raw path (the service name, still percent-encoded) lies, after
    /// any leading slashes; empty for the root.
    package static func firstSegment(of rawPath: some StringProtocol) -> Range<String.Index> {
        let bytes = rawPath.utf8
        var start = bytes.startIndex
        while start != bytes.endIndex, bytes[start] == UInt8(ascii: "/") { start = bytes.index(after: start) }
        return start..<(bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex)
    }

    static func parseQuery(_ raw: String) throws(ODataError) -> [QueryItem] {
        var items: [QueryItem] = []
        let bytes = raw.utf8
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if end != start {
                let pair = raw[start..<end]
                let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
                guard let name = PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusAsSpace: true),
                      let value = equals.map({ PercentEncoding.decode(pair[pair.utf8.index(after: $0)...], plusAsSpace: true) }) ?? ""
                else {
                    throw .badRequest("The query option '\(pair.prefix(60))' has an invalid percent escape.")
                }
                items.append(QueryItem(name: name, value: value))
            }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return items
    }

    package func value(of option: String) -> String? {
        queryItems.first { $0.name == option }?.value
    }
}
