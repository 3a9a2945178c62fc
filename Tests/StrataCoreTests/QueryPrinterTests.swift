import Foundation
import StrataCore
import Testing

@Suite struct QueryPrinterTests {
    @Test(arguments: [
        "a eq 1",
        "a or b and c",
        "(a or b) and c",
        "a sub (b sub c)",
        "a sub b sub c",
        "a eq (b eq c)",
        "a eq b eq c",
        "not (a eq b)",
        "not a eq b",
        "-(5)",
        "-5",
        "--a",
        "-(-5)",
        "-(INFd)",
        "-INFd",
        "a sub -5",
        "-a mul (b add c)",
        "PersonCar/Car/make eq 'O''Brien'",
        "substringof('Fo',make) and startswith(make,'F')",
        "substring(make,1,2) eq 'or'",
        "isof('edmexampleModel.Person')",
        "isof(a,'Edm.Int32') or cast(b,'Edm.Int64') eq 1L",
        "createDate eq datetime'2009-11-01T00:00:00'",
        "cost eq 1.5M and hours eq 1.5d and weight eq 1.5f",
        "ticket eq guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff' and photo eq X'0A1B'",
        "slot eq time'PT13H20M' and scheduled eq datetimeoffset'2009-11-01T02:00:00+02:00'",
        "a eq null",
    ])
    func canonicalTextIsStable(text: String) throws {
        let expression = try parseFilter(text)
        #expect(expression.text == text)
        #expect(try parseFilter(expression.text) == expression)
    }

    @Test(arguments: [
        ("a  eq  1", "a eq 1"),
        ("((a eq 1))", "a eq 1"),
        ("a eq 1 and (b eq 2)", "a eq 1 and b eq 2"),
        ("(a add b) add c", "a add b add c"),
        ("- 5", "-(5)"),
        ("substring( make , 1 )", "substring(make,1)"),
        ("isof(a, Edm.Int32)", "isof(a,'Edm.Int32')"),
        ("a eq 1.5", "a eq 1.5M"),
        ("a eq 1.5E+00", "a eq 1.5d"),
        ("a eq datetime'2009-11-01T00:00'", "a eq datetime'2009-11-01T00:00:00'"),
        ("a eq binary'0a1b'", "a eq X'0A1B'"),
    ])
    func canonicalization(text: String, canonical: String) throws {
        #expect(try parseFilter(text).text == canonical)
    }

    @Test func optionTexts() {
        #expect(QueryPrinter.orderBy([.descending(.property("a")), .ascending(.call(.length, [.property("b")]))]) == "a desc,length(b)")
        #expect(QueryPrinter.select([.all, "a", SelectItem(PropertyPath(["Nav"]), isWildcard: true)]) == "*,a,Nav/*")
        #expect(QueryPrinter.expand(["A/B", "C"]) == "A/B,C")
    }

    @Test func builders() {
        let filter: QueryExpression = .property("make").eq("Ford") && !.property("done").eq(true) || .property("n").ge(3_000_000_000)
        #expect(filter.text == "make eq 'Ford' and not (done eq true) or n ge 3000000000L")
        #expect(QueryExpression.property("a").add(1).mul(2).sub(3).div(4).mod(5).ne(.null).text
            == "((a add 1) mul 2 sub 3) div 4 mod 5 ne null")
        #expect(QueryExpression.property("a").lt(1).text == "a lt 1")
        #expect(QueryExpression.property("a").le(1).text == "a le 1")
        #expect(QueryExpression.property("a").gt(1).text == "a gt 1")
    }

    /// V2 has no literal form for these; they print as integers and come back as Int32.
    @Test func narrowIntegersPrintAsInt32() throws {
        for value in [ODataValue.byte(7), .sbyte(7), .int16(7)] {
            let expression = QueryExpression.literal(value)
            #expect(expression.text == "7")
            #expect(try parseFilter(expression.text) == .literal(.int32(7)))
        }
    }
}

@Suite struct QueryLiteralEdgeTests {
    /// As one Character, a quote followed by a combining mark is not "'"; it must still be doubled and read.
    @Test func quoteFollowedByCombiningMark() throws {
        let value = ODataValue.string("O'\u{301}Brien'")
        #expect(ODataLiteral.format(value) == "'O''\u{301}Brien'''")
        #expect(try ODataLiteral.parse(ODataLiteral.format(value)) == value)
        #expect(try parseFilter("a eq " + ODataLiteral.format(value)) == .property("a").eq(.literal(value)))
        #expect(throws: ODataLiteralError.self) { try ODataLiteral.parse("'a'\u{301}b'") }
    }

    @Test func oversizedDurationsAreRefused() {
        #expect(ODataTime.parse("PT99999999999999H") == nil)
        #expect(ODataTime.parse("P99999999999999D") == nil)
        #expect(ODataTime.parse("PT99999999999999999S") == nil)
        #expect(ODataTime.parse("PT1440M") == nil)
        #expect(ODataTime.parse("PT1439M") == ODataTime(hour: 23, minute: 59))
        #expect(ODataTime.parse("PT23H59M59.5S") == ODataTime(hour: 23, minute: 59, second: 59, microsecond: 500_000))
    }
}
