import StrataCore

extension QueryOptions {
    /// The query string as `version` spells it: StrataCore's version-aware printer, the same code
    /// whose parser the server runs — V4 writes `contains`, lambdas, `in`, its literals and
    /// `$count=true` where V2 writes `substringof`, prefixed literals and `$inlinecount=allpages`.
    ///
    /// This is the one place where a request's query string is made.
    func queryText(for version: ODataVersion) -> String {
        queryString(version: version)
    }
}
