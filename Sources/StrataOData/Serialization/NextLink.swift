import StrataCore

/// The `__next` link of a page: the request's URL with the position after its last row in
/// `$skiptoken`, without `$skip` (already applied) and with `$top` reduced to the rows still wanted.
/// `extra` replaces an option of the request (a tracked read's `!deltastart`, ``DeltaLink``).
enum NextLink {
    static func builder(serviceRoot: String, url: ODataRequestURL, extra: (name: String, value: String)? = nil) -> @Sendable ([ODataValue], Int?) -> String {
        let base = serviceRoot + url.path.urlText
        let items = url.queryItems
        return { position, remainingTop in
            var query: [String] = []
            for item in items where !["$skiptoken", "$skip", "$top", extra?.name].contains(item.name) {
                query.append(PercentEncoding.encodeQueryValue(item.name) + "=" + PercentEncoding.encodeQueryValue(item.value))
            }
            if let extra { query.append(PercentEncoding.encodeQueryValue(extra.name) + "=" + PercentEncoding.encodeQueryValue(extra.value)) }
            if let remainingTop { query.append("$top=\(remainingTop)") }
            query.append("$skiptoken=" + PercentEncoding.encodeQueryValue(KeysetContinuation.token(position)))
            return base + "?" + query.joined(separator: "&")
        }
    }
}
