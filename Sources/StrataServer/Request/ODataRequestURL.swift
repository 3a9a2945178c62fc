import StrataCore

/// The parts of an OData request URL: the service, the resource path below it, and the query options.
struct ODataRequestURL: Sendable {
    var serviceName: String
    var path: ResourcePath
    /// Query options as sent, in order, percent-decoded.
    var queryItems: [QueryItem]
    /// The query string as sent, still percent-encoded.
    var rawQuery: String

    struct QueryItem: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// Parses a raw request path (`/cardealer/Person(1)`) and raw query string.
    init(rawPath: String, rawQuery: String?) throws(ODataError) {
        var path = Substring(rawPath)
        while path.hasPrefix("/") { path = path.dropFirst() }
        let serviceEnd = path.firstIndex(of: "/") ?? path.endIndex
        guard let service = PercentEncoding.decode(path[..<serviceEnd]) else {
            throw .badRequest("The service name in the URL has an invalid percent escape.")
        }
        serviceName = service
        let rest = serviceEnd < path.endIndex ? path[path.index(after: serviceEnd)...] : ""
        self.path = try ResourcePath.parse(rest)
        self.rawQuery = rawQuery ?? ""
        queryItems = try Self.parseQuery(rawQuery ?? "")
    }

    static func parseQuery(_ raw: String) throws(ODataError) -> [QueryItem] {
        var items: [QueryItem] = []
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusAsSpace: true),
                  let value = parts.count > 1 ? PercentEncoding.decode(parts[1], plusAsSpace: true) : ""
            else {
                throw .badRequest("The query option '\(pair.prefix(60))' has an invalid percent escape.")
            }
            items.append(QueryItem(name: name, value: value))
        }
        return items
    }

    func value(of option: String) -> String? {
        queryItems.first { $0.name == option }?.value
    }
}
