import StrataCore

/// The `__next` link of a page: the request's URL with the position after its last row in
/// `$skiptoken`, without `$skip` (already applied) and with `$top` reduced to the rows still wanted.
enum NextLink {
    static func builder(serviceRoot: String, url: ODataRequestURL) -> @Sendable ([ODataValue], Int?) -> String {
        let base = serviceRoot + url.path.urlText
        let items = url.queryItems
        return { position, remainingTop in
            var query: [String] = []
            for item in items where !["$skiptoken", "$skip", "$top"].contains(item.name) {
                query.append(PercentEncoding.encodeQueryValue(item.name) + "=" + PercentEncoding.encodeQueryValue(item.value))
            }
            if let remainingTop { query.append("$top=\(remainingTop)") }
            query.append("$skiptoken=" + PercentEncoding.encodeQueryValue(KeysetContinuation.token(position)))
            return base + "?" + query.joined(separator: "&")
        }
    }
}
