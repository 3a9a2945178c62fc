import Foundation
import StrataCore
import StrataDemo
import Testing

private func p(_ path: String) -> QueryExpression { .property(PropertyPath(path)) }
private func v4(_ text: String) throws -> QueryExpression { try QueryOptionParser.filter(text, version: .v4) }

/// V4's `$filter` grammar beside V2's: literals, functions, `in`, lambdas, `$count`, and the printer.
@Suite struct QueryV4Tests {
    @Test func v4Literals() throws {
        #expect(try v4("d eq 2020-01-01T10:00:00Z") == p("d").eq(.literal(.dateTimeOffset(ODataDateTimeOffset.parse("2020-01-01T10:00:00Z")!))))
        #expect(try v4("d eq 2020-01-01") == p("d").eq(.literal(.dateTime(ODataDateTime(year: 2020, month: 1, day: 1)!))))
        #expect(try v4("t eq 12:30:00") == p("t").eq(.literal(.time(ODataTime(hour: 12, minute: 30)!))))
        #expect(try v4("g eq 01234567-89ab-cdef-0123-456789abcdef") == p("g").eq(.literal(.guid(UUID(uuidString: "01234567-89ab-cdef-0123-456789abcdef")!))))
        #expect(try v4("g eq abcdef01-89ab-cdef-0123-456789abcdef") == p("g").eq(.literal(.guid(UUID(uuidString: "abcdef01-89ab-cdef-0123-456789abcdef")!))))
        #expect(try v4("t eq duration'PT1H'") == p("t").eq(.literal(.time(ODataTime(hour: 1, minute: 0)!))))
        #expect(try v4("x eq INF") == p("x").eq(.literal(.double(.infinity))))
        #expect(try v4("x eq 1.5") == p("x").eq(.literal(.decimal(Decimal(string: "1.5")!))))
        #expect(try v4("x eq 1e3") == p("x").eq(.literal(.double(1000))))
        #expect(try v4("x eq null") == p("x").eq(.null))
    }

    @Test(arguments: [
        ("x eq 42L", "type suffix"), ("x eq 1.5M", "type suffix"), ("x eq datetime'2009-11-01T00:00'", "as OData V2 writes it"),
        ("x eq Model.Color'Red'", "enumeration"), ("x has Model.Color'Red'", "enumeration"),
        ("substringof('a',x)", "OData V4 writes contains"), ("x eq 2020-01-01T10:00", "no time zone"), ("x eq 2020-13-01", "not a valid date"),
        ("x eq geography'POINT(1 2)'", "spatial"), ("A/all()", "all needs"), ("A/any(a:A/any(a:true))", "already used"),
        ("x in (y,z)", "holds literals"), ("$it eq 1", "$it alone"),
    ])
    func v4Refusals(text: String, expected: String) {
        #expect {
            try v4(text)
        } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.status == 400 && "\(error)".contains(expected)
        }
    }

    @Test func v2StaysV2() throws {
        // V4's forms are not V2's: V2 refuses them as before.
        #expect(throws: ODataError.self) { try QueryOptionParser.filter("contains(a,'b')") }
        #expect(throws: ODataError.self) { try QueryOptionParser.filter("A/any(a:a/b eq 1)") }
        #expect(throws: ODataError.self) { try QueryOptionParser.filter("a in (1,2)") }
        #expect(try QueryOptionParser.filter("substringof('b',a)") == .call(.substringof, ["b", p("a")]))
    }

    @Test func v4Constructs() throws {
        #expect(try v4("contains(a,'b')") == .call(.contains, [p("a"), "b"]))
        #expect(try v4("a in ('x','y')") == .in(p("a"), ["x", "y"]))
        #expect(try v4("PersonCar/any(pc:pc/Car/make eq 'Ford')")
                == .lambda("PersonCar", .any, variable: "pc", predicate: p("pc/Car/make").eq("Ford")))
        #expect(try v4("PersonCar/any()") == .lambda("PersonCar", .any, variable: nil, predicate: nil))
        #expect(try v4("A/all(a:a/B/any(b:b/c eq a/d))")
                == .lambda("A", .all, variable: "a", predicate: .lambda("a/B", .any, variable: "b", predicate: p("b/c").eq(p("a/d")))))
        #expect(try v4("PersonCar/$count gt 1") == QueryExpression.count("PersonCar").gt(1))
        #expect(try v4("year(d) eq 2020 and now() gt d") == (QueryExpression.call(.year, [p("d")]).eq(2020) && QueryExpression.call(.now, []).gt(p("d"))))
        #expect(try QueryOptionParser.orderBy("PersonCar/$count desc", version: .v4) == [.descending(.count("PersonCar"))])
    }

    @Test func printerPrintsEachVersion() {
        let substring = QueryExpression.call(.substringof, ["b", p("a")])
        #expect(QueryPrinter.filter(substring) == "substringof('b',a)")
        #expect(QueryPrinter.filter(substring, version: .v4) == "contains(a,'b')")
        #expect(QueryPrinter.filter(.call(.contains, [p("a"), "b"])) == "substringof('b',a)")
        let date = QueryExpression.literal(.dateTime(ODataDateTime(year: 2020, month: 1, day: 2)!))
        #expect(QueryPrinter.filter(p("d").eq(date), version: .v4) == "d eq 2020-01-02")
        #expect(QueryPrinter.filter(p("g").eq(.literal(.guid(UUID(uuidString: "01234567-89ab-cdef-0123-456789abcdef")!))), version: .v4)
                == "g eq 01234567-89ab-cdef-0123-456789abcdef")
        var options = QueryOptions()
        options.filter = .in(p("a"), [1, 2])
        options.inlineCount = .allPages
        #expect(options.queryString(version: .v4) == "$filter=a%20in%20(1,2)&$count=true")
    }

    /// parse(print(x)) == x in V4, for expressions whose literals have V4 forms of their own type.
    @Test func v4RoundTrip() throws {
        let dto = ODataDateTimeOffset.parse("2020-01-01T10:00:00.5+02:00")!
        let expressions: [QueryExpression] = [
            p("a").eq(.literal(.dateTimeOffset(dto))) || p("t").lt(.literal(.time(ODataTime(hour: 1, minute: 2, second: 3, microsecond: 4)!))),
            .in(p("a"), ["x", "it''s", .null]), .in(.binary(.add, p("a"), 1), [1, 2]), !(.in(p("a"), [1])),
            .lambda("PersonCar", .any, variable: "pc", predicate: p("pc/Car/make").eq("Ford") && .lambda("pc/Car/Owners", .all, variable: "o", predicate: p("o/x").eq(p("pc/y")))),
            .lambda("PersonCar", .any, variable: nil, predicate: nil),
            QueryExpression.count("PersonCar").gt(1),
            .call(.contains, [p("a"), "b"]), .call(.now, []) , .call(.fractionalseconds, [p("d")]).gt(.literal(.decimal(Decimal(string: "0.5")!))),
            p("x").eq(.literal(.double(1.5))) && p("y").ne(.literal(.double(-.infinity))) && p("z").eq(.literal(.decimal(3))),
            p("b").eq(.literal(.binary(Data([1, 2, 255])))), p("n").eq(.literal(.int64(9_000_000_000))),
            .cast(p("a"), typeName: "Edm.Int64").eq(.literal(.int64(9_000_000_000))),
        ]
        for expression in expressions {
            let text = QueryPrinter.filter(expression, version: .v4)
            #expect(try v4(text) == expression, "\(text)")
        }
        // The V2 generator's expressions print in V4 and parse back to the same text.
        var generator = QueryASTGenerator(random: SplitMix64(seed: 0xA57_0004))
        let limits = QueryLimits(maxFilterDepth: 10_000, maxFilterNodes: 1_000_000)
        for _ in 0..<1000 {
            let text = QueryPrinter.filter(generator.expression(depth: 5), version: .v4)
            let parsed = try QueryOptionParser.filter(text, limits: limits, version: .v4)
            #expect(QueryPrinter.filter(parsed, version: .v4) == text)
        }
    }
}
