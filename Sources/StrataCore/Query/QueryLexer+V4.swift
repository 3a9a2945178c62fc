import Foundation

/// V4's literal forms. V4 writes dates, times and GUIDs without a prefix (`2020-01-01T00:00:00Z`,
/// `2020-01-01`, `12:30:00`, `01234567-89ab-cdef-0123-456789abcdef`), numbers without a type
/// suffix, and keeps a prefix only for `duration'…'`, `binary'…'` (base64url), the spatial types and
/// enumeration members; Strata has neither of the last two, so those are refused with a message
/// saying so rather than read as something else.
extension QueryLexer {
    /// The literals that are keywords in V4: no `NaNd`/`INFf` spellings there.
    static let v4KeywordLiterals: Set<String> = ["null", "true", "false", "NaN", "INF"]

    /// A date, date-time with offset, time of day or GUID starting at `start`; nil when none starts
    /// there. A text that has the shape of one but is not valid (month 13) is a 400.
    mutating func v4Literal(from start: Int) throws(ODataError) -> QueryToken? {
        guard let first = scalar(at: start), first.isASCII, first.properties.isASCIIHexDigit else { return nil }
        if let end = guidEnd(from: start) {
            let source = text(start..<end)
            guard let uuid = UUID(uuidString: source) else { return nil }
            index = end
            return QueryToken(kind: .literal(.guid(uuid)), column: start + 1, text: source)
        }
        guard Self.isDigit(first) else { return nil }
        if let (end, zoned) = try dateEnd(from: start) {
            let source = text(start..<end)
            index = end
            let value: ODataValue?
            if zoned {
                value = ODataDateTimeOffset.parse(source).map(ODataValue.dateTimeOffset)
            } else {
                value = ODataDateTime.parse(source).map(ODataValue.dateTime)
            }
            guard let value else {
                throw QuerySyntaxError.make(option, "\(QuerySyntaxError.quoted(source)) is not a valid date", column: start + 1,
                                            hint: "write a date as 2020-01-31 and a date-time as 2020-01-31T13:45:00Z")
            }
            return QueryToken(kind: .literal(value), column: start + 1, text: source)
        }
        if let end = timeEnd(from: start) {
            let source = text(start..<end)
            index = end
            guard let time = ODataTime.parse(source) else {
                throw QuerySyntaxError.make(option, "\(QuerySyntaxError.quoted(source)) is not a valid time of day", column: start + 1,
                                            hint: "write it as 13:45:00 or 13:45:00.5")
            }
            return QueryToken(kind: .literal(.time(time)), column: start + 1, text: source)
        }
        return nil
    }

    /// V4 numbers carry no type suffix (`42L`, `1.5M`, `2d` are V2's); the value's form gives the type.
    func refuseSuffix(_ literal: String, column: Int) throws(ODataError) {
        guard literal != "-INF", let last = literal.unicodeScalars.last, "LlMmDdFf".unicodeScalars.contains(last) else { return }
        let body = String(literal.dropLast())
        throw QuerySyntaxError.make(option, "\(QuerySyntaxError.quoted(literal)) has a type suffix, which OData V4 does not use",
                                    column: column, hint: "write the number without it, as \(body.isEmpty ? "42" : body)")
    }

    /// `duration'P1DT2H'`, `binary'AQID'`; the other prefixes are refused with what to write instead.
    func v4PrefixedLiteral(_ prefix: String, body: String, source: String, column: Int) throws(ODataError) -> QueryToken {
        func refuse(_ what: String, _ hint: String) -> ODataError {
            QuerySyntaxError.make(option, what, column: column, hint: hint)
        }
        switch prefix.lowercased() {
        case "duration":
            // Strata's Edm.Time values are times of day, which V2 writes as durations of at most a day.
            guard body.hasPrefix("P"), let time = ODataTime.parse(body) else {
                throw refuse("\(QuerySyntaxError.quoted(source)) is not a duration Strata can compare",
                             "Strata's durations are times of day, from duration'PT0S' up to less than duration'P1D', as in duration'PT13H20M'")
            }
            return QueryToken(kind: .literal(.time(time)), column: column, text: source)
        case "binary":
            guard let data = Self.base64URLDecoded(body) else {
                throw refuse("\(QuerySyntaxError.quoted(source)) is not valid binary", "OData V4 writes binary as base64url, as in binary'AQID'")
            }
            return QueryToken(kind: .literal(.binary(data)), column: column, text: source)
        case "geography", "geometry":
            throw refuse("\(QuerySyntaxError.quoted(source)) is a spatial literal", "Strata's services have no geography or geometry properties")
        case "datetime", "datetimeoffset", "time", "guid", "x":
            throw refuse("\(QuerySyntaxError.quoted(source)) is written as OData V2 writes it",
                         "OData V4 writes literals without a prefix: 2009-11-01T00:00:00Z, 2009-11-01, 13:20:00, 12345678-aaaa-bbbb-cccc-ddddeeeeffff, binary'AQID'")
        default:
            throw refuse("\(QuerySyntaxError.quoted(source)) is an enumeration literal",
                         "Strata's services have no enumeration types; compare with a string or number property instead")
        }
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    private func digits(_ from: Int, _ count: Int) -> Bool {
        (0..<count).allSatisfy { scalar(at: from + $0).map(Self.isDigit) == true }
    }

    /// True when nothing that would continue a name or number follows `i`.
    private func endsAt(_ i: Int) -> Bool {
        guard let c = scalar(at: i) else { return true }
        return !(Self.isIdentifierPart(c) || c == "." || c == ":" || c == "-")
    }

    private func guidEnd(from start: Int) -> Int? {
        var i = start
        for (group, length) in [8, 4, 4, 4, 12].enumerated() {
            for _ in 0..<length {
                guard let c = scalar(at: i), c.isASCII, c.properties.isASCIIHexDigit else { return nil }
                i += 1
            }
            if group < 4 {
                guard scalar(at: i) == "-" else { return nil }
                i += 1
            }
        }
        return endsAt(i) ? i : nil
    }

    /// `YYYY-MM-DD`, or with `THH:MM[:SS[.f]]` and a zone (`Z`, `+01:00`); `zoned` for the latter.
    private func dateEnd(from start: Int) throws(ODataError) -> (end: Int, zoned: Bool)? {
        guard digits(start, 4), scalar(at: start + 4) == "-", digits(start + 5, 2), scalar(at: start + 7) == "-",
              digits(start + 8, 2) else { return nil }
        var i = start + 10
        guard scalar(at: i) == "T" || scalar(at: i) == "t" else { return endsAt(i) ? (i, false) : nil }
        i += 1
        guard let clock = timeEnd(from: i, requireEnd: false) else { return nil }
        i = clock
        switch scalar(at: i) {
        case "Z", "z":
            i += 1
        case "+", "-":
            guard digits(i + 1, 2), scalar(at: i + 3) == ":", digits(i + 4, 2) else { return nil }
            i += 6
        default:
            throw QuerySyntaxError.make(option, "the date-time \(QuerySyntaxError.quoted(text(start..<i))) has no time zone", column: start + 1,
                                        hint: "OData V4 date-times end with Z or an offset, as in 2020-01-31T13:45:00Z")
        }
        return endsAt(i) ? (i, true) : nil
    }

    /// `HH:MM[:SS[.fraction]]`.
    private func timeEnd(from start: Int, requireEnd: Bool = true) -> Int? {
        guard digits(start, 2), scalar(at: start + 2) == ":", digits(start + 3, 2) else { return nil }
        var i = start + 5
        if scalar(at: i) == ":", digits(i + 1, 2) {
            i += 3
            if scalar(at: i) == ".", digits(i + 1, 1) {
                i += 1
                while scalar(at: i).map(Self.isDigit) == true { i += 1 }
            }
        }
        return !requireEnd || endsAt(i) ? i : nil
    }
}
