/// Reads V4's `$expand`: comma-separated navigation paths, each optionally followed by its options
/// in parentheses, separated by `;` — `PersonCar($filter=carID gt 2;$expand=Car($select=make)),Other`.
///
/// Nested `$expand` items become deeper paths (`PersonCar/Car`); every path counts toward the
/// limits on the depth and the number of expanded paths, wherever it is written. Each option's text
/// goes to the same parser as the top-level option, so `$filter` inside means what it means outside.
struct ExpandParser {
    private let scalars: [Unicode.Scalar]
    private let limits: QueryLimits
    private var index = 0
    private var paths: [PropertyPath] = []
    private var options: [PropertyPath: ExpandOptions] = [:]

    static func parse(_ text: String, limits: QueryLimits) throws(ODataError) -> (paths: [PropertyPath], options: [PropertyPath: ExpandOptions]) {
        var parser = ExpandParser(scalars: Array(text.unicodeScalars), limits: limits)
        try parser.list(prefix: [], closing: nil)
        try limits.checkExpandWidth(parser.paths.count)
        return (parser.paths, parser.options)
    }

    private init(scalars: [Unicode.Scalar], limits: QueryLimits) {
        self.scalars = scalars
        self.limits = limits
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" { index += 1 }
    }

    /// Items up to the end (`closing` nil) or up to a `;` or `)` that ends a nested `$expand`.
    private mutating func list(prefix: [String], closing: Unicode.Scalar?) throws(ODataError) {
        while true {
            skipSpaces()
            try item(prefix: prefix)
            skipSpaces()
            guard let c = current else {
                guard closing == nil else { throw error("expected ')' to close the options of \(PropertyPath(prefix))") }
                return
            }
            if c == "," {
                index += 1
                continue
            }
            if closing != nil, c == ";" || c == ")" { return }
            throw error("expected ',' between paths, found \(QuerySyntaxError.quoted(String(c)))")
        }
    }

    private mutating func item(prefix: [String]) throws(ODataError) {
        let column = index + 1
        var segments = prefix
        while true {
            if current == "*" {
                throw error("'*' is not supported", hint: "name each navigation property to expand")
            }
            if current == "$" {
                throw error("\(QuerySyntaxError.quoted(word())) is not supported in $expand",
                            hint: "expand the navigation property itself; read references with …/Nav/$ref and counts with $count=true in its options")
            }
            segments.append(try name())
            guard current == "/" else { break }
            index += 1
        }
        try limits.checkExpandDepth(segments, column: column)
        // `A/B` expands `A` too, as in V2.
        for length in (prefix.count + 1)...segments.count {
            let path = PropertyPath(Array(segments.prefix(length)))
            if !paths.contains(path) { paths.append(path) }
        }
        skipSpaces()
        guard current == "(" else { return }
        index += 1
        try optionList(for: segments)
    }

    /// `$name=value` pairs separated by `;`, up to the closing `)`.
    private mutating func optionList(for segments: [String]) throws(ODataError) {
        let path = PropertyPath(segments)
        let limits = self.limits
        guard options[path] == nil else { throw error("the options of \(path) are given twice; give them once") }
        var given = ExpandOptions()
        var seen: Set<String> = []
        skipSpaces()
        if current == ")" {
            index += 1
            options[path] = given
            return
        }
        while true {
            skipSpaces()
            let column = index + 1
            let name = word()
            guard name.hasPrefix("$"), name.count > 1 else {
                throw error("expected an option such as $filter or $select in the options of \(path)")
            }
            guard current == "=" else { throw error("expected '=' after \(name)") }
            index += 1
            guard seen.insert(name).inserted else {
                throw QuerySyntaxError.make("$expand", "\(name) appears twice in the options of \(path)", column: column)
            }
            switch name {
            case "$expand":
                try list(prefix: segments, closing: ")")
            case "$filter":
                given.filter = try nested(path) { (text) throws(ODataError) in try QueryOptionParser.filter(text, limits: limits, version: .v4) }
            case "$orderby":
                given.orderBy = try nested(path) { (text) throws(ODataError) in try QueryOptionParser.orderBy(text, limits: limits, version: .v4) }
            case "$top":
                given.top = try nested(path) { (text) throws(ODataError) in try QueryOptionParser.top(text, limits: limits) }
            case "$skip":
                given.skip = try nested(path) { (text) throws(ODataError) in try QueryOptionParser.skip(text) }
            case "$select":
                given.select = try nested(path) { (text) throws(ODataError) in try QueryOptionParser.select(text) }
            case "$count":
                given.count = try nested(path) { (text) throws(ODataError) in
                    switch text {
                    case "true": return true
                    case "false": return false
                    default: throw .badRequest("$count: \(QuerySyntaxError.quoted(text)) is not true or false")
                    }
                }
            case "$levels":
                throw QuerySyntaxError.make("$expand", "$levels is not supported (in the options of \(path))", column: column,
                                            hint: "expand each level by name, as in \(path)($expand=Nav)")
            default:
                throw QuerySyntaxError.make("$expand", "\(name) is not an option of an expanded navigation property", column: column,
                                            hint: "use $filter, $orderby, $top, $skip, $count, $select or $expand")
            }
            skipSpaces()
            if current == ";" {
                index += 1
                continue
            }
            guard current == ")" else { throw error("expected ';' or ')' after the option \(name) of \(path)") }
            index += 1
            break
        }
        options[path] = given
    }

    /// Parses one option's text with the top-level option's parser; its errors name the path.
    private mutating func nested<T>(_ path: PropertyPath, _ parse: (String) throws(ODataError) -> T) throws(ODataError) -> T {
        let text = value()
        do {
            return try parse(text)
        } catch {
            throw ODataError(status: error.status, code: error.code, message: "$expand, in the options of \(path): \(error.message)")
        }
    }

    /// An option's text: up to the `;` or `)` that ends it, skipping those inside quotes and parentheses.
    private mutating func value() -> String {
        let start = index
        var depth = 0
        var quoted = false
        while let c = current {
            if quoted {
                // `''` inside a string is one quote.
                if c == "'" {
                    if index + 1 < scalars.count, scalars[index + 1] == "'" { index += 2; continue }
                    quoted = false
                }
            } else if c == "'" {
                quoted = true
            } else if c == "(" {
                depth += 1
            } else if c == ")" {
                if depth == 0 { break }
                depth -= 1
            } else if c == ";", depth == 0 {
                break
            }
            index += 1
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<index])
        return String(view)
    }

    private mutating func name() throws(ODataError) -> String {
        guard let c = current, QueryLexer.isIdentifierStart(c) else {
            let found = current.map { ", found \(QuerySyntaxError.quoted(String($0)))" } ?? ""
            throw error("expected a navigation property name" + found)
        }
        return word()
    }

    /// An identifier, or `$` and one.
    private mutating func word() -> String {
        let start = index
        if current == "$" { index += 1 }
        while let c = current, QueryLexer.isIdentifierPart(c) { index += 1 }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<index])
        return String(view)
    }

    private func error(_ what: String, hint: String? = nil) -> ODataError {
        QuerySyntaxError.make("$expand", what, column: index + 1, hint: hint)
    }
}
