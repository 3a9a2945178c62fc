@testable import StrataCore
import Testing

private func p(_ path: String) -> QueryExpression { .property(PropertyPath(path)) }

/// The `$apply` and `$compute` parser: its trees, its round trip through `text`, and its refusals.
@Suite struct ApplyParserTests {
    static func parse(_ query: String) throws(ODataError) -> QueryOptions {
        try QueryOptions(parsing: query, limits: .default, version: .v4)
    }

    @Test func trees() throws {
        #expect(try Self.parse("$apply=aggregate(price with sum as Total,$count as N)").apply
                == [.aggregate([AggregateItem(.value(p("price"), .sum), as: "Total"), AggregateItem(.count, as: "N")])])
        #expect(try Self.parse("$apply=groupby((Car/make,model))").apply == [.groupBy([PropertyPath("Car/make"), "model"], aggregate: [])])
        #expect(try Self.parse("$apply=filter(a gt 1)/groupby((b),aggregate(c mul 2 with average as D))/orderby(D desc,b)/skip(1)/top(2)").apply == [
            .filter(.binary(.gt, p("a"), .literal(.int32(1)))),
            .groupBy(["b"], aggregate: [AggregateItem(.value(.binary(.mul, p("c"), .literal(.int32(2))), .average), as: "D")]),
            .orderBy([OrderByItem(p("D"), .descending), OrderByItem(p("b"))]),
            .skip(1), .top(2),
        ])
        #expect(try Self.parse("$apply=compute(a add 1 as B, 'as' as C)/identity").apply
                == [.compute([ComputeItem(.binary(.add, p("a"), .literal(.int32(1))), as: "B"), ComputeItem(.literal(.string("as")), as: "C")]), .identity])
        #expect(try Self.parse("$compute=a mul 2 as B,c as D").compute == [ComputeItem(.binary(.mul, p("a"), .literal(.int32(2))), as: "B"), ComputeItem(p("c"), as: "D")])
    }

    @Test(arguments: [
        "aggregate(price with sum as Total,$count as N)",
        "groupby((Car/make,model),aggregate(price with countdistinct as K))",
        "filter(a gt 1 and startswith(b,'x'))/groupby((b))/compute(b as C)/orderby(C desc)/skip(3)/top(4)",
    ])
    func roundTrip(text: String) throws {
        let parsed = try Self.parse("$apply=" + text).apply
        #expect(ApplyTransformation.text(parsed) == text)
        var options = QueryOptions()
        options.apply = parsed
        #expect(try Self.parse(options.queryString).apply == parsed)
    }

    @Test(arguments: [
        ("$apply=aggregate()", 400, "expected an expression"),
        ("$apply=aggregate(price)", 400, "needs 'with'"),
        ("$apply=aggregate(price as T)", 400, "needs an aggregation method at column 17"),
        ("$apply=aggregate(price with total as T)", 400, "unknown aggregation method 'total'"),
        ("$apply=aggregate(price with sum)", 400, "expected 'as' and an alias"),
        ("$apply=aggregate($count with sum as N)", 400, "$count takes no aggregation method"),
        ("$apply=groupby(a)", 400, "parentheses"),
        ("$apply=groupby((a)", 400, "expected ')' to close groupby"),
        ("$apply=filter(a gt)", 400, "$apply: expected an operand after 'gt' at column 12"),
        ("$apply=Aggregate($count as N)", 400, "lowercase: aggregate"),
        ("$apply=top(x)", 400, "non-negative integer"),
        ("$apply=top(1)x", 400, "expected '/'"),
        ("$apply=rollup(a)", 501, "rollup is not supported"),
        ("$apply=topcount(2,a)", 501, "topcount is not supported"),
        ("$apply=groupby((rollup(a,b)))", 501, "rollup"),
        ("$apply=aggregate(a with Custom.x as Y)", 501, "custom aggregation methods"),
        ("$apply=aggregate(a with sum from b with max as Y)", 501, "from is not supported"),
        ("$apply=Self.f()", 501, "custom set transformations"),
        // Without its parentheses a qualified name is no transformation: malformed, not unimplemented.
        ("$apply=Ii.E'", 400, "expected '(' after"),
        ("$apply=rollup", 400, "expected '(' after"),
        ("$compute=a mul 2", 400, "expected 'as'"),
    ] as [(String, Int, String)])
    func refusals(query: String, status: Int, message: String) {
        let error = #expect(throws: ODataError.self) { try Self.parse(query) }
        #expect(error?.status == status, "\(query): \(error?.message ?? "")")
        #expect(error?.message.contains(message) == true, "\(query): \(error?.message ?? "")")
    }

    @Test func v2HasNoApply() {
        let error = #expect(throws: ODataError.self) { try QueryOptions(parsing: "$apply=identity", limits: .default, version: .v2) }
        #expect(error?.message.contains("V4") == true)
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "groupby((a),", count: 200) + "aggregate($count as N)" + String(repeating: ")", count: 200)
        #expect(throws: ODataError.self) { try Self.parse("$apply=" + deep) }
    }
}
