/// The system query options of OData V2 and V4, by their exact (lowercase) names.
enum SystemQueryOption: String, CaseIterable {
    case filter = "$filter"
    case orderBy = "$orderby"
    case top = "$top"
    case skip = "$skip"
    case select = "$select"
    case expand = "$expand"
    case inlineCount = "$inlinecount"
    case skipToken = "$skiptoken"
    case format = "$format"
    /// V4's `$count=true`, V2's `$inlinecount=allpages`.
    case count = "$count"
    /// V4 only: the Data Aggregation extension's transformations.
    case apply = "$apply"
    /// V4 only: computed properties.
    case compute = "$compute"
    /// V4 only: free-text search.
    case search = "$search"

    /// The options `version` defines: V2's `$inlinecount` is V4's `$count`; `$apply`, `$compute` and `$search` are V4's.
    static func defined(in version: ODataVersion) -> [SystemQueryOption] {
        allCases.filter { version.isV4 ? $0 != .inlineCount : ![.count, .apply, .compute, .search].contains($0) }
    }
}

extension QueryOptions {
    /// Parses a raw, percent-encoded query string such as `$filter=lastName%20eq%20'Samson'&$top=5`
    /// (a leading `?` is allowed; `+` means a space).
    ///
    /// Unknown `$` options, a system option given twice, a query string longer than
    /// the limit on the query string's length and any malformed option are 400s. Options whose names do
    /// not start with `$` are kept in ``customOptions``.
    public init(parsing queryString: some StringProtocol) throws(ODataError) {
        try self.init(parsing: queryString, limits: .default)
    }

    /// The same, under the server's limits (``QueryLimits``), with the options of `version`.
    package init(parsing queryString: some StringProtocol, limits: QueryLimits, version: ODataVersion = .v2) throws(ODataError) {
        self.init()
        var raw = Substring(queryString)
        if raw.first == "?" { raw = raw.dropFirst() }
        guard raw.utf8.count <= limits.maxQueryStringLength else {
            throw .badRequest("The query string is \(raw.utf8.count) bytes long, more than the limit of \(limits.maxQueryStringLength)")
        }
        var seen: Set<SystemQueryOption> = []
        // Split on bytes, not Characters: a URL's `&` and `=` are bytes, and Character iteration was
        // a fifth of a parse.
        for pairBytes in raw.utf8.split(separator: UInt8(ascii: "&")) {
            let pair = Substring(pairBytes)
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { pair[..<$0] } ?? pair
            let rawValue = equals.map { pair[pair.utf8.index(after: $0)...] } ?? ""
            guard let name = PercentEncoding.decode(rawName, plusAsSpace: true),
                  let value = PercentEncoding.decode(rawValue, plusAsSpace: true) else {
                throw .badRequest("The query option \(QuerySyntaxError.quoted(String(pair))) has an invalid percent escape; write % as %25")
            }
            guard name.hasPrefix("$") else {
                guard !name.isEmpty else {
                    throw .badRequest("The query string has a value without an option name: \(QuerySyntaxError.quoted(String(pair)))")
                }
                customOptions.append(CustomQueryOption(name: name, value: value))
                continue
            }
            guard let option = SystemQueryOption(rawValue: name), SystemQueryOption.defined(in: version).contains(option) else {
                throw Self.unknownOption(name, version: version)
            }
            guard seen.insert(option).inserted else {
                throw .badRequest("The query option \(name) appears more than once; give it once")
            }
            try apply(option, value, limits: limits, version: version)
        }
    }

    private mutating func apply(_ option: SystemQueryOption, _ value: String, limits: QueryLimits, version: ODataVersion) throws(ODataError) {
        switch option {
        case .filter: filter = try QueryOptionParser.filter(value, limits: limits, version: version)
        case .orderBy: orderBy = try QueryOptionParser.orderBy(value, limits: limits, version: version)
        case .top: top = try QueryOptionParser.top(value, limits: limits)
        case .skip: skip = try QueryOptionParser.skip(value)
        case .select: select = try QueryOptionParser.select(value)
        case .expand where version.isV4:
            let parsed = try ExpandParser.parse(value, limits: limits)
            expand = parsed.paths
            expandOptions = parsed.options
        case .expand: expand = try QueryOptionParser.expand(value, limits: limits)
        case .inlineCount: inlineCount = try QueryOptionParser.inlineCount(value)
        case .count:
            switch value {
            case "true": inlineCount = .allPages
            case "false": inlineCount = InlineCount.none
            default: throw .badRequest("$count: \(QuerySyntaxError.quoted(value)) is not true or false")
            }
        case .apply: apply = try ApplyParser.transformations(value, limits: limits)
        case .compute: compute = try ApplyParser.compute(value, limits: limits)
        case .search: search = try SearchParser.parse(value, limits: limits)
        case .skipToken:
            guard !value.isEmpty else { throw .badRequest("$skiptoken is empty; pass the token from the __next link unchanged") }
            skipToken = value
        case .format:
            guard !value.isEmpty else { throw .badRequest("$format is empty; write $format=json") }
            format = value
        }
    }

    private static func unknownOption(_ name: String, version: ODataVersion) -> ODataError {
        let defined = SystemQueryOption.defined(in: version)
        if let known = SystemQueryOption(rawValue: name.lowercased()), defined.contains(known), known.rawValue != name {
            return .badRequest("Unknown system query option \(QuerySyntaxError.quoted(name)); system query options are lowercase: \(known.rawValue)")
        }
        if !version.isV4, [SystemQueryOption.apply, .compute, .search].map(\.rawValue).contains(name) {
            return .badRequest("\(name) is OData V4's; Strata serves it to V4 requests only: send OData-MaxVersion: 4.0 (and no DataServiceVersion)")
        }
        if version.isV4, name == SystemQueryOption.inlineCount.rawValue {
            return .badRequest("$inlinecount is OData V2's; OData V4 counts with $count=true")
        }
        let names = defined.map(\.rawValue).joined(separator: ", ")
        return .badRequest("Unknown system query option \(QuerySyntaxError.quoted(name)); OData \(version.isV4 ? "V4 (as Strata serves it so far)" : "V2") defines \(names)")
    }
}
