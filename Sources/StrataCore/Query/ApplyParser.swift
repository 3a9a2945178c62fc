/// Reads the text of `$apply` (percent-decoded) into ``ApplyTransformation``s, and `$compute` into
/// ``ComputeItem``s.
///
/// The transformations' frame (names, parentheses, `with`, `as`, paths) is read here, scalar by
/// scalar; every expression inside (`filter(…)`, what `aggregate` aggregates, `compute`, `orderby`)
/// is handed to ``ExpressionParser``, padded with spaces so that its error columns are columns of
/// the whole option. Parts of the extension Strata does not implement are refused with 501 as soon as
/// they are recognised, syntax errors with 400; both name what is supported.
struct ApplyParser {
    /// What the messages of 501s list.
    static let supported = "Strata supports aggregate (sum, min, max, average, countdistinct, $count), groupby, filter, compute, orderby, top, skip and identity"

    /// Transformations of the extension that Strata recognises but does not implement.
    static let unimplemented: Set<String> = [
        "topcount", "topsum", "toppercent", "bottomcount", "bottomsum", "bottompercent", "concat", "search",
        "nest", "addnested", "join", "outerjoin", "ancestors", "descendants", "traverse",
    ]

    private let scalars: [Unicode.Scalar]
    private let option: String
    private let limits: QueryLimits
    private var index = 0
    private var depth = 0

    /// Parses `$apply`.
    static func transformations(_ text: String, limits: QueryLimits) throws(ODataError) -> [ApplyTransformation] {
        var parser = ApplyParser(text, option: "$apply", limits: limits)
        let sequence = try parser.sequence()
        parser.skipSpaces()
        guard parser.current == nil else {
            throw parser.error("expected '/' and another transformation, found \(QuerySyntaxError.quoted(String(parser.current!)))")
        }
        return sequence
    }

    /// Parses `$compute`: `expr as Alias`, comma-separated.
    static func compute(_ text: String, limits: QueryLimits) throws(ODataError) -> [ComputeItem] {
        var parser = ApplyParser(text, option: "$compute", limits: limits)
        var items: [ComputeItem] = []
        while true {
            items.append(try parser.computeItem())
            parser.skipSpaces()
            guard let c = parser.current else { return items }
            guard c == "," else { throw parser.error("expected ',' or the end of $compute, found \(QuerySyntaxError.quoted(String(c)))") }
            parser.index += 1
        }
    }

    private init(_ text: String, option: String, limits: QueryLimits) {
        self.scalars = Array(text.unicodeScalars)
        self.option = option
        self.limits = limits
    }

    // MARK: Transformations

    private mutating func sequence() throws(ODataError) -> [ApplyTransformation] {
        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.maxFilterDepth else {
            throw error("transformations nest deeper than the limit of \(limits.maxFilterDepth) levels")
        }
        var transformations: [ApplyTransformation] = []
        while true {
            transformations.append(try transformation())
            skipSpaces()
            guard current == "/" else { return transformations }
            index += 1
        }
    }

    private mutating func transformation() throws(ODataError) -> ApplyTransformation {
        skipSpaces()
        let column = index + 1
        let name = qualifiedName()
        guard !name.isEmpty else {
            throw error("expected a transformation", hint: Self.supported)
        }
        if name.contains(".") {
            // `Namespace.Name(…)` is a custom transformation, valid but not implemented (501); a
            // qualified name without its parentheses is no transformation at all (400).
            try requireOpening(name)
            throw Self.notImplemented(option, "custom set transformations such as \(QuerySyntaxError.quoted(name)) are not supported", column: column)
        }
        switch name {
        case "identity":
            return .identity
        case "aggregate":
            try open(name)
            let items = try aggregateItems()
            try close(name)
            return .aggregate(items)
        case "groupby":
            return try groupBy()
        case "filter":
            try open(name)
            let expression = try expression(stoppingAt: [])
            try close(name)
            return .filter(expression)
        case "compute":
            try open(name)
            var items: [ComputeItem] = []
            repeat {
                items.append(try computeItem())
            } while try comma(in: name)
            return .compute(items)
        case "orderby":
            try open(name)
            var items: [OrderByItem] = []
            repeat {
                items.append(try orderByItem())
            } while try comma(in: name)
            return .orderBy(items)
        case "top", "skip":
            try open(name)
            let count = try count(of: name)
            try close(name)
            return name == "top" ? .top(count) : .skip(count)
        default:
            if Self.unimplemented.contains(name) || name == "rollup" {
                try requireOpening(name)
                throw Self.notImplemented(option, "the transformation \(name) is not supported", column: column)
            }
            let lowered = name.lowercased()
            let hint = lowered != name && (["aggregate", "groupby", "filter", "compute", "orderby", "top", "skip", "identity"].contains(lowered)
                || Self.unimplemented.contains(lowered)) ? "transformation names are lowercase: \(lowered)" : Self.supported
            throw error("unknown transformation \(QuerySyntaxError.quoted(name))", at: column, hint: hint)
        }
    }

    /// `groupby((path,…))` or `groupby((path,…),aggregate(…))`.
    private mutating func groupBy() throws(ODataError) -> ApplyTransformation {
        try open("groupby")
        skipSpaces()
        guard current == "(" else {
            throw error("groupby takes its paths in parentheses", hint: "write groupby((make,model)) or groupby((make),aggregate(price with sum as Total))")
        }
        index += 1
        var paths: [PropertyPath] = []
        repeat {
            paths.append(try groupingPath())
        } while try comma(in: "the paths of groupby")
        var aggregate: [AggregateItem] = []
        skipSpaces()
        if current == "," {
            index += 1
            skipSpaces()
            let column = index + 1
            let nested = try sequence()
            if nested.count == 1, case .aggregate(let items) = nested[0] {
                aggregate = items
            } else if nested != [.identity] {
                throw Self.notImplemented(option, "groupby's second argument can only be aggregate(…)", column: column)
            }
        }
        try close("groupby")
        return .groupBy(paths, aggregate: aggregate)
    }

    /// `Name` or `Nav/Name`, written without spaces.
    private mutating func groupingPath() throws(ODataError) -> PropertyPath {
        skipSpaces()
        var segments: [String] = []
        while true {
            let column = index + 1
            if current == "@" {
                throw error("annotations cannot be grouped by", hint: "name properties, as in groupby((Car/make))")
            }
            let name = qualifiedName()
            guard !name.isEmpty else {
                let found = current.map { ", found \(QuerySyntaxError.quoted(String($0)))" } ?? ""
                throw error("expected a property path in groupby" + found)
            }
            if segments.isEmpty, name == "rollup" || name == "rolluprecursive", current == "(" {
                throw Self.notImplemented(option, "\(name) is not supported", column: column)
            }
            if name.contains(".") {
                throw Self.notImplemented(option, "type casts such as \(QuerySyntaxError.quoted(name)) in groupby paths are not supported", column: column)
            }
            segments.append(name)
            guard current == "/" else { return PropertyPath(segments) }
            index += 1
        }
    }

    // MARK: Aggregates

    private mutating func aggregateItems() throws(ODataError) -> [AggregateItem] {
        var items: [AggregateItem] = []
        repeat {
            items.append(try aggregateItem())
        } while try comma(in: "aggregate")
        // `comma(in:)` consumed the closing parenthesis; give it back for `close`.
        index -= 1
        return items
    }

    private mutating func aggregateItem() throws(ODataError) -> AggregateItem {
        skipSpaces()
        let start = index
        if matches("$count"), !(scalar(at: index + 6).map(QueryLexer.isIdentifierPart) ?? false) {
            index += 6
            switch peekWord() ?? "" {
            case "as":
                takeWord()
                return AggregateItem(.count, as: try alias())
            case "with":
                throw error("$count takes no aggregation method", hint: "write $count as Count")
            case "from":
                throw Self.notImplemented(option, "from is not supported", column: wordColumn())
            default:
                throw error("expected 'as' and an alias after $count", hint: "write $count as Count")
            }
        }
        let range = try extent(stoppingAt: ["with", "as", "from"])
        let written = QuerySyntaxError.quoted(text(range))
        switch peekWord() ?? "" {
        case "with":
            takeWord()
            skipSpaces()
            let column = index + 1
            let name = qualifiedName()
            if name.contains(".") {
                throw Self.notImplemented(option, "custom aggregation methods such as \(QuerySyntaxError.quoted(name)) are not supported", column: column)
            }
            guard let method = AggregationMethod(rawValue: name) else {
                let what = name.isEmpty ? "expected an aggregation method after 'with'" : "unknown aggregation method \(QuerySyntaxError.quoted(name))"
                throw error(what, at: column, hint: "the methods are " + AggregationMethod.allCases.map(\.rawValue).joined(separator: ", "))
            }
            switch peekWord() ?? "" {
            case "as":
                takeWord()
            case "from":
                throw Self.notImplemented(option, "from is not supported", column: wordColumn())
            default:
                throw error("expected 'as' and an alias after 'with \(name)'", hint: "write \(text(range)) with \(name) as Alias")
            }
            let alias = try alias()
            return AggregateItem(.value(try expression(range), method), as: alias)
        case "from":
            throw Self.notImplemented(option, "from is not supported", column: wordColumn())
        case "as" where text(range).hasSuffix("/$count"):
            throw Self.notImplemented(option, "counting related entities (\(written)) is not supported; aggregate over the related entity set instead", column: start + 1)
        case "as":
            throw error("\(written) needs an aggregation method", at: wordColumn(),
                        hint: "write \(text(range)) with sum as Alias; the methods are " + AggregationMethod.allCases.map(\.rawValue).joined(separator: ", "))
        default:
            throw error("\(written) needs 'with' a method and 'as' an alias", at: start + 1,
                        hint: "write \(text(range)) with sum as Alias (Strata has no custom aggregates); the methods are "
                            + AggregationMethod.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    // MARK: Expressions

    private mutating func computeItem() throws(ODataError) -> ComputeItem {
        let range = try extent(stoppingAt: ["as"])
        guard peekWord() == "as" else {
            throw error("expected 'as' and an alias after \(QuerySyntaxError.quoted(text(range)))", hint: "write price mul 2 as DoublePrice")
        }
        takeWord()
        let alias = try alias()
        return ComputeItem(try expression(range), as: alias)
    }

    private mutating func orderByItem() throws(ODataError) -> OrderByItem {
        let range = try extent(stoppingAt: ["asc", "desc"])
        var direction = SortDirection.ascending
        if let word = peekWord(), let parsed = SortDirection(rawValue: word) {
            takeWord()
            direction = parsed
        }
        return OrderByItem(try expression(range), direction)
    }

    private mutating func expression(stoppingAt words: Set<String>) throws(ODataError) -> QueryExpression {
        try expression(try extent(stoppingAt: words))
    }

    /// Parses the scalars of `range` as one expression, with the columns of the whole option.
    private func expression(_ range: Range<Int>) throws(ODataError) -> QueryExpression {
        try refuseUnimplemented(in: range)
        var padded = String(repeating: " ", count: range.lowerBound)
        padded.unicodeScalars.append(contentsOf: scalars[range])
        // The extension's expressions are V4's: its literals, `contains`, lambdas, `in`, `Nav/$count`, `$it`.
        var parser = try ExpressionParser(padded, option: option, limits: limits, version: .v4)
        let expression = try parser.parseExpression()
        guard parser.current.kind == .end else {
            throw parser.unexpected(expecting: "expected an operator")
        }
        return expression
    }

    /// The parts of the extension's expressions that `$filter` does not have either (`$these/aggregate(…)`,
    /// `$root`, annotations, functions of the model): 501 rather than the expression parser's
    /// syntax error, since they are valid and only not implemented.
    private func refuseUnimplemented(in range: Range<Int>) throws(ODataError) {
        var i = range.lowerBound
        var previous: Unicode.Scalar = " "
        while i < range.upperBound {
            let c = scalars[i]
            if c == "'" {
                i += 1
                while i < range.upperBound, scalars[i] != "'" { i += 1 }
                i += 1
                previous = "'"
                continue
            }
            if c == "$" || c == "@" {
                var end = i + 1
                while end < range.upperBound, QueryLexer.isIdentifierPart(scalars[end]) || scalars[end] == "." { end += 1 }
                // `$it` and `Nav/$count` are `$filter`'s too: the expression parser reads them.
                if c == "$", ["$it", "$count"].contains(text(i..<end)) {
                    previous = scalars[end - 1]
                    i = end
                    continue
                }
                throw Self.notImplemented(option, "\(QuerySyntaxError.quoted(text(i..<end))) in expressions is not supported", column: i + 1)
            }
            if QueryLexer.isIdentifierStart(c), !QueryLexer.isIdentifierPart(previous), !QueryLexer.isDigit(previous) {
                var end = i
                var dotted = false
                while end < range.upperBound, QueryLexer.isIdentifierPart(scalars[end]) || (scalars[end] == "." && end + 1 < range.upperBound
                        && QueryLexer.isIdentifierStart(scalars[end + 1])) {
                    if scalars[end] == "." { dotted = true }
                    end += 1
                }
                let name = text(i..<end)
                if end < range.upperBound, scalars[end] == "(" {
                    if dotted {
                        throw Self.notImplemented(option, "functions of the model such as \(QuerySyntaxError.quoted(name)) are not supported", column: i + 1)
                    }
                    if name == "aggregate", previous == "/" {
                        throw Self.notImplemented(option, "the aggregate function (path/aggregate(…)) is not supported", column: i + 1)
                    }
                }
                previous = scalars[end - 1]
                i = end
                continue
            }
            previous = c
            i += 1
        }
    }

    /// The scalars of the expression starting here: up to a `,` or `)` outside parentheses and
    /// strings, or one of `words` standing alone; trailing spaces left out. Never empty.
    private mutating func extent(stoppingAt words: Set<String>) throws(ODataError) -> Range<Int> {
        skipSpaces()
        let start = index
        var nesting = 0
        scan: while let c = current {
            switch c {
            case "'":
                index += 1
                while let s = current {
                    index += 1
                    if s == "'" {
                        if current == "'" { index += 1 } else { break }
                    }
                }
                continue scan
            case "(":
                nesting += 1
            case ")":
                if nesting == 0 { break scan }
                nesting -= 1
            case ",":
                if nesting == 0 { break scan }
            case " ", "\t", "\r", "\n":
                if nesting == 0, let word = peekWord(), words.contains(word) { break scan }
            default:
                break
            }
            index += 1
        }
        var end = index
        while end > start, [" ", "\t", "\r", "\n"].contains(scalars[end - 1]) { end -= 1 }
        guard end > start else {
            let found = current.map { ", found \(QuerySyntaxError.quoted(String($0)))" } ?? ""
            throw error("expected an expression" + found)
        }
        return start..<end
    }

    // MARK: Small pieces

    private var current: Unicode.Scalar? { scalar(at: index) }

    private func scalar(at i: Int) -> Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

    private func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range])
        return String(view)
    }

    private mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" || c == "\r" || c == "\n" { index += 1 }
    }

    private func matches(_ literal: String) -> Bool {
        var i = index
        for s in literal.unicodeScalars {
            guard scalar(at: i) == s else { return false }
            i += 1
        }
        return true
    }

    /// An identifier or a dotted name (`Custom.concat`); empty when none starts here.
    private mutating func qualifiedName() -> String {
        let start = index
        while let c = current, QueryLexer.isIdentifierStart(c) {
            index += 1
            while let c = current, QueryLexer.isIdentifierPart(c) { index += 1 }
            guard current == ".", scalar(at: index + 1).map(QueryLexer.isIdentifierStart) == true else { break }
            index += 1
        }
        return text(start..<index)
    }

    /// The word after any spaces, without moving; nil when no identifier follows.
    private func peekWord() -> String? {
        var i = index
        while let c = scalar(at: i), c == " " || c == "\t" || c == "\r" || c == "\n" { i += 1 }
        let start = i
        while let c = scalar(at: i), QueryLexer.isIdentifierPart(c) { i += 1 }
        guard i > start, QueryLexer.isIdentifierStart(scalars[start]) else { return nil }
        return text(start..<i)
    }

    /// The column of the next word (after spaces).
    private func wordColumn() -> Int {
        var i = index
        while let c = scalar(at: i), c == " " || c == "\t" || c == "\r" || c == "\n" { i += 1 }
        return i + 1
    }

    private mutating func takeWord() {
        skipSpaces()
        while let c = current, QueryLexer.isIdentifierPart(c) { index += 1 }
    }

    private mutating func alias() throws(ODataError) -> String {
        skipSpaces()
        let start = index
        guard let c = current, QueryLexer.isIdentifierStart(c) else {
            throw error("expected an alias after 'as'", hint: "an alias is a name such as Total")
        }
        while let c = current, QueryLexer.isIdentifierPart(c) { index += 1 }
        return text(start..<index)
    }

    private mutating func count(of name: String) throws(ODataError) -> Int {
        skipSpaces()
        let start = index
        while let c = current, QueryLexer.isDigit(c) { index += 1 }
        guard index > start, let value = Int(text(start..<index)) else {
            throw error("\(name) takes a non-negative integer", at: start + 1, hint: "write \(name)(10)")
        }
        if name == "top", value > limits.maxTop {
            throw error("top(\(value)) exceeds the maximum of \(limits.maxTop)", at: start + 1)
        }
        return value
    }

    private mutating func open(_ name: String) throws(ODataError) {
        skipSpaces()
        guard current == "(" else { throw error("expected '(' after \(name)") }
        index += 1
    }

    /// 400 unless `(` follows `name` (left unread): what makes a name a call of the transformation.
    private mutating func requireOpening(_ name: String) throws(ODataError) {
        skipSpaces()
        guard current == "(" else {
            let found = current.map { ", found \(QuerySyntaxError.quoted(String($0)))" } ?? ", but the text ends"
            throw error("expected '(' after \(QuerySyntaxError.quoted(name))" + found)
        }
    }

    private mutating func close(_ name: String) throws(ODataError) {
        skipSpaces()
        guard current == ")" else {
            let found = current.map { ", found \(QuerySyntaxError.quoted(String($0)))" } ?? ", but the text ends"
            throw error("expected ')' to close \(name)" + found)
        }
        index += 1
    }

    /// After an item of a list in parentheses: true after a `,` (another item follows), false after
    /// the closing `)`, which it consumes.
    private mutating func comma(in list: String) throws(ODataError) -> Bool {
        skipSpaces()
        switch current {
        case ",":
            index += 1
            return true
        case ")":
            index += 1
            return false
        default:
            let found = current.map { "found \(QuerySyntaxError.quoted(String($0)))" } ?? "but the text ends"
            throw error("expected ',' or ')' in \(list), \(found)")
        }
    }

    private func error(_ what: String, at column: Int? = nil, hint: String? = nil) -> ODataError {
        QuerySyntaxError.make(option, what, column: column ?? index + 1, hint: hint)
    }

    static func notImplemented(_ option: String, _ what: String, column: Int) -> ODataError {
        ODataError(status: 501, code: "NotImplemented", message: "\(option): \(what) (at column \(column)); \(supported)")
    }
}
