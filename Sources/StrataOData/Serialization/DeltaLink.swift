import StrataCore

/// The links of a tracked read: the request's own URL with the feed's option in place of those of
/// the page it answers — `!deltatoken` in the `__delta` link and inside a paged delta,
/// `!deltastart` in the `__next` links of a first read. The query stays in the link (as in SAP's
/// and Olingo's links); the token only proves which query it was issued for.
package enum DeltaLink {
    /// The request URL with `option=token` instead of any feed option, `$skiptoken` and `$skip`.
    package static func url(serviceRoot: String, url: ODataRequestURL, option: String, token: String) -> String {
        link(serviceRoot: serviceRoot, url: url, adding: (option, token))
    }

    /// The request URL without the feed's options: what a client reads again after `410 Gone`.
    package static func reload(serviceRoot: String, url: ODataRequestURL) -> String {
        link(serviceRoot: serviceRoot, url: url, adding: nil)
    }

    private static func link(serviceRoot: String, url: ODataRequestURL, adding option: (name: String, value: String)?) -> String {
        var query: [String] = []
        // `wait` stays out: a client that follows a link as given should not find itself long-polling.
        for item in url.queryItems where !DeltaRequest.options.contains(item.name) && item.name != "$skip" && item.name != ODataDelta.waitOption {
            query.append(PercentEncoding.encodeQueryValue(item.name) + "=" + PercentEncoding.encodeQueryValue(item.value))
        }
        if let option {
            // `!` stays readable: it is a sub-delimiter RFC 3986 allows in a query.
            query.append(option.name + "=" + PercentEncoding.encodeQueryValue(option.value))
        }
        let base = serviceRoot + url.path.urlText
        return query.isEmpty ? base : base + "?" + query.joined(separator: "&")
    }
}
