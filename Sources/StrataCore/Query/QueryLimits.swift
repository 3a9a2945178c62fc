/// Bounds on what one request's query options may ask for, so that a single URL cannot make the
/// parser, the binder or the database do unbounded work. Exceeding any of them is a 400 that names
/// the limit.
package struct QueryLimits: Sendable, Hashable {
    /// How deeply `(…)`, function calls, `not` and `-` may nest in one `$filter` or `$orderby`
    /// expression. The parser checks it while it recurses, so deep input never exhausts the stack.
    package var maxFilterDepth: Int
    /// How many nodes (operands, operators, calls) one `$filter` or `$orderby` expression may have.
    /// This also bounds the depth of long `a or b or c …` chains, which nest in the tree but not in the text.
    package var maxFilterNodes: Int
    /// How many navigation properties one `$expand` path may chain (`A/B/C` is 3).
    package var maxExpandDepth: Int
    /// How many comma-separated paths `$expand` may list.
    package var maxExpandWidth: Int
    /// The largest `$top` a client may ask for.
    package var maxTop: Int
    /// The longest raw (percent-encoded) query string accepted, in bytes.
    package var maxQueryStringLength: Int

    package init(
        maxFilterDepth: Int = 50,
        maxFilterNodes: Int = 500,
        maxExpandDepth: Int = 5,
        maxExpandWidth: Int = 20,
        maxTop: Int = 10_000,
        maxQueryStringLength: Int = 8 * 1024
    ) {
        self.maxFilterDepth = maxFilterDepth
        self.maxFilterNodes = maxFilterNodes
        self.maxExpandDepth = maxExpandDepth
        self.maxExpandWidth = maxExpandWidth
        self.maxTop = maxTop
        self.maxQueryStringLength = maxQueryStringLength
    }

    /// 50 levels, 500 nodes, expand depth 5 and width 20, `$top` up to 10,000, 8 KiB of query string.
    package static let `default` = QueryLimits()
}

extension QueryLimits {
    /// Refuses a `$expand` of more paths than ``maxExpandWidth`` (V4's nested paths count too).
    func checkExpandWidth(_ count: Int) throws(ODataError) {
        guard count <= maxExpandWidth else {
            throw .badRequest("$expand: \(count) paths exceed the limit of \(maxExpandWidth)")
        }
    }

    /// Refuses an expanded path that chains more navigation properties than ``maxExpandDepth``;
    /// `column` is where the path is written.
    func checkExpandDepth(_ segments: [String], column: Int) throws(ODataError) {
        guard segments.count <= maxExpandDepth else {
            throw QuerySyntaxError.make("$expand", "the path \(QuerySyntaxError.quoted(segments.joined(separator: "/"))) is \(segments.count) levels deep, more than the limit of \(maxExpandDepth),", column: column)
        }
    }
}
