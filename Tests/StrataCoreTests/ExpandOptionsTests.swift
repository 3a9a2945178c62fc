import Foundation
@testable import StrataCore
import Testing

/// V4's `$expand` with options (issue 38): what the parser makes of it, where it stops, and that
/// V2 keeps refusing parentheses.
@Suite struct ExpandOptionsTests {
    static func v4(_ query: String) throws(ODataError) -> QueryOptions {
        try QueryOptions(parsing: query, limits: .default, version: .v4)
    }

    @Test func nestedOptionsBecomeDeeperPathsWithOptionsOfTheirOwn() throws {
        let options = try Self.v4("$expand=PersonCar($filter=carID gt 2;$orderby=carID desc;$top=1;$skip=2;$count=true;$select=carID;$expand=Car($select=make)),Other")
        #expect(options.expand == ["PersonCar", "PersonCar/Car", "Other"])
        #expect(options.expandOptions["PersonCar"] == ExpandOptions(
            filter: .property("carID").gt(2), orderBy: [.descending(.property("carID"))], top: 1, skip: 2, count: true,
            select: ["carID"]))
        #expect(options.expandOptions["PersonCar/Car"] == ExpandOptions(select: ["make"]))
        #expect(options.expandOptions["Other"] == nil)
    }

    @Test func theV4QueryStringPrintsNestedOptionsThatParseBackToTheSame() throws {
        let texts = [
            "$expand=PersonCar($filter=carID gt 2;$orderby=carID desc;$top=1;$skip=2;$count=true;$select=carID;$expand=Car($select=make)),Other",
            "$expand=A($filter=name eq 'a;b)''c' and contains(name,'x');$top=3)",
            "$expand=A/B($top=1),C",
            "$expand=A($expand=B($expand=C($filter=D/any(d:d/x eq $it/y))))",
        ]
        for text in texts {
            let parsed = try Self.v4(text)
            let printed = parsed.queryString(version: .v4)
            let again = try Self.v4(printed)
            #expect(again.expand == parsed.expand, "\(text) → \(printed)")
            #expect(again.expandOptions == parsed.expandOptions, "\(text) → \(printed)")
        }
        let printed = try Self.v4(texts[0]).queryString(version: .v4).removingPercentEncoding
        #expect(printed == "$expand=PersonCar($filter=carID gt 2;$orderby=carID desc;$top=1;$skip=2;$count=true;$select=carID;$expand=Car($select=make)),Other")
        // Paths without options print as paths (with the prefixes the parser adds).
        #expect(try Self.v4("$expand=A/B,C").queryString(version: .v4) == "$expand=A,A/B,C")
    }

    @Test func anOptionsTextEndsAtItsOwnSemicolonOrParenthesisNotOneInAStringOrCall() throws {
        let options = try Self.v4("$expand=A($filter=name eq 'a;b)''c' and (x eq 1);$top=3)")
        #expect(options.expandOptions["A"]?.top == 3)
        #expect(options.expandOptions["A"]?.filter == (QueryExpression.property("name").eq("a;b)'c") && QueryExpression.property("x").eq(1)))
        #expect(try Self.v4("$expand=A()").expandOptions["A"] == ExpandOptions())
    }

    @Test func refusalsSayWhatAndWhere() {
        let cases: [(String, String)] = [
            ("$expand=A($levels=2)", "$levels is not supported"),
            ("$expand=A($top=1", "expected ';' or ')'"),
            ("$expand=A($top=1;$top=2)", "$top appears twice"),
            ("$expand=A($search=x)", "$search is not an option of an expanded navigation property"),
            ("$expand=A($filter=)", "in the options of A: $filter"),
            ("$expand=A($top=x)", "in the options of A: $top"),
            ("$expand=A(top=1)", "expected an option such as $filter"),
            ("$expand=*", "'*' is not supported"),
            ("$expand=A/$ref", "is not supported in $expand"),
            ("$expand=A($expand=B($expand=C($expand=D($expand=E($expand=F)))))", "more than the limit of 5"),
            ("$expand=A($top=1),A($top=2)", "the options of A are given twice"),
        ]
        for (query, message) in cases {
            #expect(throws: ODataError.self, "\(query)") { try Self.v4(query) }
            do {
                _ = try Self.v4(query)
            } catch {
                #expect(error.status == 400 && error.message.contains(message), "\(query): \(error.message)")
            }
        }
    }

    @Test func theWidthLimitCountsNestedPaths() {
        let limits = QueryLimits(maxExpandWidth: 2)
        #expect(throws: ODataError.self) { try QueryOptions(parsing: "$expand=A($expand=B),C", limits: limits, version: .v4) }
    }

    @Test func v2KeepsItsSyntax() {
        #expect(throws: ODataError.self) { try QueryOptions(parsing: "$expand=A($top=1)") }
        #expect((try? QueryOptions(parsing: "$expand=A/B"))?.expandOptions == [:])
    }
}
