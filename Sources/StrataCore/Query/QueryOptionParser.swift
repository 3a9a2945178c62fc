/// Parsers for the text of each system query option, already percent-decoded.
///
/// ``QueryOptions/init(parsing:)`` uses these for a whole query string; they are public for
/// callers that hold one option's text. Every failure is a 400 whose message starts with the option
/// and says where (1-based column into the given text) and what: `$filter: expected an operand after 'eq' at column 17`.
public enum QueryOptionParser {
    /// Parses a V4 `$search` expression: `red OR blue NOT "used car"`.
    public static func search(_ text: String) throws(ODataError) -> SearchExpression {
        try SearchParser.parse(text, limits: .default)
    }

    /// Parses a `$filter` expression.
    public static func filter(_ text: String) throws(ODataError) -> QueryExpression {
        try filter(text, limits: .default)
    }

    /// Parses a `$filter` expression in the grammar of `version` (V1 and V2 share V2's).
    public static func filter(_ text: String, version: ODataVersion) throws(ODataError) -> QueryExpression {
        try filter(text, limits: .default, version: version)
    }

    /// The same, under the server's limits.
    package static func filter(_ text: String, limits: QueryLimits, version: ODataVersion = .v2) throws(ODataError) -> QueryExpression {
        var parser = try ExpressionParser(text, option: "$filter", limits: limits, version: version)
        let expression = try parser.parseExpression()
        guard parser.current.kind == .end else {
            if parser.current.kind == .closeParen {
                throw parser.error("unexpected ')'", hint: "no '(' is open here")
            }
            throw parser.unexpected(expecting: "expected an operator")
        }
        return expression
    }

    /// Parses `$orderby`: comma-separated expressions, each optionally followed by `asc` or `desc`.
    /// The limits on depth and nodes apply to each key.
    public static func orderBy(_ text: String) throws(ODataError) -> [OrderByItem] {
        try orderBy(text, limits: .default)
    }

    /// Parses `$orderby` in the grammar of `version`.
    public static func orderBy(_ text: String, version: ODataVersion) throws(ODataError) -> [OrderByItem] {
        try orderBy(text, limits: .default, version: version)
    }

    /// The same, under the server's limits.
    package static func orderBy(_ text: String, limits: QueryLimits, version: ODataVersion = .v2) throws(ODataError) -> [OrderByItem] {
        var items: [OrderByItem] = []
        var parser = try ExpressionParser(text, option: "$orderby", limits: limits, version: version)
        while true {
            let expression = try parser.parseExpression()
            var direction = SortDirection.ascending
            if case .identifier(let word) = parser.current.kind {
                guard let parsed = SortDirection(rawValue: word) else {
                    throw parser.error("unknown direction \(QuerySyntaxError.quoted(word))", hint: "use asc or desc")
                }
                direction = parsed
                parser.advance()
            }
            items.append(OrderByItem(expression, direction))
            switch parser.current.kind {
            case .end: return items
            case .comma: parser.advance()
            default:
                throw parser.error("expected ',' or the end of $orderby, found \(QuerySyntaxError.quoted(parser.current.text))")
            }
        }
    }

    /// Parses `$top`: a non-negative integer no larger than ``QueryLimits/maxTop``.
    public static func top(_ text: String) throws(ODataError) -> Int {
        try top(text, limits: .default)
    }

    /// The same, under the server's limits.
    package static func top(_ text: String, limits: QueryLimits) throws(ODataError) -> Int {
        let value = try nonNegativeInteger(text, option: "$top")
        guard let value, value <= limits.maxTop else {
            throw .badRequest("$top: \(text) exceeds the maximum of \(limits.maxTop); page through the rest with $skip or the response's __next link")
        }
        return value
    }

    /// Parses `$skip`: a non-negative integer.
    public static func skip(_ text: String) throws(ODataError) -> Int {
        guard let value = try nonNegativeInteger(text, option: "$skip") else {
            throw .badRequest("$skip: \(text) is too large")
        }
        return value
    }

    /// Digits only; nil when they do not fit in an `Int`.
    private static func nonNegativeInteger(_ text: String, option: String) throws(ODataError) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw .badRequest("\(option): \(QuerySyntaxError.quoted(text)) is not a non-negative integer")
        }
        return Int(text)
    }

    /// Parses `$select`: `*`, properties, navigation properties, `Nav/prop`, `Nav/*`.
    public static func select(_ text: String) throws(ODataError) -> [SelectItem] {
        try PathListParser.parse(text, option: "$select", allowsWildcard: true).map {
            SelectItem(PropertyPath($0.segments), isWildcard: $0.isWildcard)
        }
    }

    /// Parses `$expand`: navigation paths such as `PersonCar/Car`, within the expand depth and width limits.
    public static func expand(_ text: String) throws(ODataError) -> [PropertyPath] {
        try expand(text, limits: .default)
    }

    /// The same, under the server's limits.
    package static func expand(_ text: String, limits: QueryLimits) throws(ODataError) -> [PropertyPath] {
        let items = try PathListParser.parse(text, option: "$expand", allowsWildcard: false)
        try limits.checkExpandWidth(items.count)
        for item in items { try limits.checkExpandDepth(item.segments, column: item.column) }
        return items.map { PropertyPath($0.segments) }
    }

    /// Parses `$inlinecount`: `allpages` or `none`.
    public static func inlineCount(_ text: String) throws(ODataError) -> InlineCount {
        guard let value = InlineCount(rawValue: text) else {
            throw .badRequest("$inlinecount: \(QuerySyntaxError.quoted(text)) is not allpages or none")
        }
        return value
    }
}
