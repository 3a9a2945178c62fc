import StrataCore

extension QueryOptions {
    /// The query string as `version` spells it.
    ///
    /// V4 asks for the total count with `$count=true` where V1 and V2 say `$inlinecount=allpages`;
    /// every other option prints through StrataCore's ``QueryOptions/queryString``, which writes the
    /// V2 forms of `$filter` (`substringof`, V2 literals).
    ///
    /// This is the one place where a request's query string is made, so a version-aware printer
    /// (V4's `contains`, lambdas and `in`) replaces `queryString` here.
    func queryText(for version: ODataVersion) -> String {
        guard version.isV4 else { return queryString }
        var options = self
        let counted = options.inlineCount == .allPages
        options.inlineCount = nil
        let text = options.queryString
        guard counted else { return text }
        return text.isEmpty ? "$count=true" : text + "&$count=true"
    }
}
