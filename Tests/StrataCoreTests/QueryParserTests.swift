import Foundation
import StrataCore
import Testing

private func p(_ path: String) -> QueryExpression { .property(PropertyPath(path)) }
private func b(_ op: BinaryOperator, _ l: QueryExpression, _ r: QueryExpression) -> QueryExpression { .binary(op, l, r) }

@Suite struct QueryParserTests {
    @Test(arguments: BinaryOperator.allCases)
    func everyBinaryOperator(op: BinaryOperator) throws {
        #expect(try parseFilter("a \(op.keyword) b") == .binary(op, p("a"), p("b")))
    }

    @Test func unaryOperators() throws {
        #expect(try parseFilter("not a") == .unary(.not, p("a")))
        #expect(try parseFilter("not(a)") == .unary(.not, p("a")))
        #expect(try parseFilter("-a") == .unary(.negate, p("a")))
        #expect(try parseFilter("- 5") == .unary(.negate, .literal(.int32(5))))
        #expect(try parseFilter("-(5)") == .unary(.negate, .literal(.int32(5))))
        #expect(try parseFilter("-5") == .literal(.int32(-5)))
        #expect(try parseFilter("--a") == .unary(.negate, .unary(.negate, p("a"))))
        #expect(try parseFilter("not not a") == .unary(.not, .unary(.not, p("a"))))
        #expect(try parseFilter("-INFO") == .unary(.negate, p("INFO")))
    }

    @Test(arguments: [
        ("a or b and c", b(.or, p("a"), b(.and, p("b"), p("c")))),
        ("a and b or c", b(.or, b(.and, p("a"), p("b")), p("c"))),
        ("a eq b and c ne d", b(.and, b(.eq, p("a"), p("b")), b(.ne, p("c"), p("d")))),
        ("a lt b eq c", b(.eq, b(.lt, p("a"), p("b")), p("c"))),
        ("a eq b lt c", b(.eq, p("a"), b(.lt, p("b"), p("c")))),
        ("a add b gt c", b(.gt, b(.add, p("a"), p("b")), p("c"))),
        ("a add b mul c", b(.add, p("a"), b(.mul, p("b"), p("c")))),
        ("a mul b sub c", b(.sub, b(.mul, p("a"), p("b")), p("c"))),
        ("a sub b sub c", b(.sub, b(.sub, p("a"), p("b")), p("c"))),
        ("a div b mod c", b(.mod, b(.div, p("a"), p("b")), p("c"))),
        ("a sub (b sub c)", b(.sub, p("a"), b(.sub, p("b"), p("c")))),
        ("(a or b) and c", b(.and, b(.or, p("a"), p("b")), p("c"))),
        ("not a eq b", b(.eq, .unary(.not, p("a")), p("b"))),
        ("not (a eq b)", .unary(.not, b(.eq, p("a"), p("b")))),
        ("-a mul b", b(.mul, .unary(.negate, p("a")), p("b"))),
        ("a sub -5", b(.sub, p("a"), .literal(.int32(-5)))),
        ("PersonCar/Car/make eq 'Ford'", b(.eq, p("PersonCar/Car/make"), .literal(.string("Ford")))),
        ("length(a) add 1 gt 2", b(.gt, b(.add, .call(.length, [p("a")]), .literal(.int32(1))), .literal(.int32(2)))),
        ("  a\teq  b  ", b(.eq, p("a"), p("b"))),
        ("((a))", p("a")),
    ])
    func precedence(text: String, expected: QueryExpression) throws {
        #expect(try parseFilter(text) == expected)
    }

    static let literalCases: [(String, ODataValue)] = [
        ("null", .null), ("true", .boolean(true)), ("false", .boolean(false)),
        ("42", .int32(42)), ("-42", .int32(-42)), ("2147483648", .int64(2_147_483_648)),
        ("123L", .int64(123)), ("-9223372036854775808L", .int64(.min)),
        ("1.5M", .decimal(Decimal(string: "1.5")!)), ("1.5m", .decimal(Decimal(string: "1.5")!)), ("1.5", .decimal(Decimal(string: "1.5")!)),
        ("1.5d", .double(1.5)), ("1.5E+00", .double(1.5)), ("1.5E 00", .double(1.5)), ("2E-3", .double(0.002)), ("1.5f", .single(1.5)),
        ("INF", .double(.infinity)), ("-INFd", .double(-.infinity)), ("INFf", .single(.infinity)),
        ("'O''Brien'", .string("O'Brien")), ("''", .string("")), ("'a b,c/d(e)'", .string("a b,c/d(e)")),
        ("'\u{301}é'", .string("\u{301}é")),
        ("datetime'2009-11-01T00:00'", .dateTime(ODataDateTime(year: 2009, month: 11, day: 1)!)),
        ("datetime'2009-11-01T10:20:30'", .dateTime(ODataDateTime(year: 2009, month: 11, day: 1, hour: 10, minute: 20, second: 30)!)),
        ("datetime'2009-11-01T10:20:30.125'", .dateTime(ODataDateTime(year: 2009, month: 11, day: 1, hour: 10, minute: 20, second: 30, microsecond: 125_000)!)),
        ("datetimeoffset'2009-11-01T02:00:00+02:00'", .dateTimeOffset(ODataDateTimeOffset(utc: ODataDateTime(year: 2009, month: 11, day: 1)!, offsetMinutes: 120))),
        ("time'PT13H20M'", .time(ODataTime(hour: 13, minute: 20)!)),
        ("guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'", .guid(UUID(uuidString: "12345678-aaaa-bbbb-cccc-ddddeeeeffff")!)),
        ("X'0A1B'", .binary(Data([0x0A, 0x1B]))), ("binary'0A1B'", .binary(Data([0x0A, 0x1B]))),
    ]

    @Test(arguments: literalCases)
    func everyLiteralForm(text: String, value: ODataValue) throws {
        #expect(try parseFilter("a eq \(text)") == b(.eq, p("a"), .literal(value)))
        #expect(try parseFilter(text) == .literal(value))
    }

    @Test func functionsAndTypeCalls() throws {
        #expect(try parseFilter("substringof('Fo',make)") == .call(.substringof, [.literal(.string("Fo")), p("make")]))
        #expect(try parseFilter("substring(make, 1, 2)") == .call(.substring, [p("make"), .literal(.int32(1)), .literal(.int32(2))]))
        #expect(try parseFilter("year (createDate)") == .call(.year, [p("createDate")]))
        #expect(try parseFilter("isof('edmexampleModel.Person')") == .isOf(nil, typeName: "edmexampleModel.Person"))
        #expect(try parseFilter("isof(edmexampleModel.Person)") == .isOf(nil, typeName: "edmexampleModel.Person"))
        #expect(try parseFilter("isof(a, 'Edm.Int32')") == .isOf(p("a"), typeName: "Edm.Int32"))
        #expect(try parseFilter("cast(a,Edm.Int64)") == .cast(p("a"), typeName: "Edm.Int64"))
        #expect(try parseFilter("cast('x','Edm.String')") == .cast(.literal(.string("x")), typeName: "Edm.String"))
        #expect(try parseFilter("cast('Edm.String')") == .cast(nil, typeName: "Edm.String"))
        for function in QueryFunction.functions(in: .v2) {
            let arguments = Array(repeating: "a", count: function.arity.lowerBound).joined(separator: ",")
            #expect(try parseFilter("\(function.name)(\(arguments))") == .call(function, Array(repeating: p("a"), count: function.arity.lowerBound)))
        }
    }

    @Test(arguments: [
        ("PartitionKey eq ", "$filter: expected an operand after 'eq' at column 17"),
        ("a eq", "$filter: expected an operand after 'eq' at column 5"),
        ("", "$filter: expected an operand at column 1"),
        ("a eq )", "$filter: expected an operand after 'eq' at column 6; found ')'"),
        ("firstName eq 'abc", "$filter: the string that starts here is not closed with a quote at column 14; write a quote inside a string twice, as in 'O''Brien'"),
        ("(a eq 1", "$filter: expected ')' to close the '(' at column 1, but the text ends at column 8"),
        ("(a eq 1 2)", "$filter: expected ')' to close the '(' at column 1, found '2' at column 9"),
        ("a eq 1)", "$filter: unexpected ')' at column 7; no '(' is open here"),
        ("a EQ 1", "$filter: unknown operator 'EQ' at column 3; operators are lowercase: eq"),
        ("a foo 1", "$filter: unknown operator 'foo' at column 3; the operators are or, and, eq, ne, gt, ge, lt, le, add, sub, mul, div, mod"),
        ("a eq 1 2", "$filter: expected an operator, found '2' at column 8"),
        ("SubstringOf('a',b)", "$filter: unknown function 'SubstringOf' at column 1; function names are lowercase: substringof"),
        ("foo(a)", "$filter: unknown function 'foo' at column 1; the functions are substringof, startswith, endswith, length, indexof, replace, substring, tolower, toupper, trim, concat, year, month, day, hour, minute, second, round, floor, ceiling, isof, cast"),
        ("substring(a)", "$filter: substring takes 2 or 3 arguments, not 1, at column 1; substring(Edm.String, Edm.Int32) -> Edm.String or substring(Edm.String, Edm.Int32, Edm.Int32) -> Edm.String"),
        ("x eq length()", "$filter: length takes 1 argument, not 0, at column 6; length(Edm.String) -> Edm.Int32"),
        ("substring(a 1)", "$filter: expected ',' or ')' in the arguments of substring, found '1' at column 13"),
        ("a eq datetime'2009-13-01'", "$filter: datetime'2009-13-01' is not a valid datetime at column 6; write datetime'2009-11-01T00:00' or datetime'2009-11-01T00:00:00.123'"),
        ("a eq guid'1'", "$filter: guid'1' is not a valid guid at column 6; write guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'"),
        ("a eq X'0A1'", "$filter: X'0A1' is not valid binary at column 6; write X'0A1B' with an even number of hex digits"),
        ("a eq foo'1'", "$filter: unknown literal prefix 'foo' in foo'1' at column 6"),
        ("a eq 12abc", "$filter: 12abc is not a value at column 6; strings need quotes ('12abc'), other literals look like 42, 1.5M, true, null, datetime'2009-11-01T00:00'"),
        ("a eq 1.5E", "$filter: 1.5E is not a value at column 6; strings need quotes ('1.5E'), other literals look like 42, 1.5M, true, null, datetime'2009-11-01T00:00'"),
        ("a eq #", "$filter: unexpected character '#' at column 6"),
        ("a/ eq 1", "$filter: expected a property name after '/' at column 3"),
        ("isof(a)", "$filter: expected ',' and a type name in isof, as in isof(x,'Edm.Int32'), found ')' at column 7"),
        ("cast(a,1)", "$filter: expected a type name in cast at column 8; write it as 'Edm.Int32' or 'Namespace.EntityType'"),
        ("isof(a,'T' b)", "$filter: unknown operator 'b' at column 12; the operators are or, and, eq, ne, gt, ge, lt, le, add, sub, mul, div, mod"),
    ])
    func filterErrors(text: String, message: String) {
        #expect(errorMessage { () throws(ODataError) in try parseFilter(text) } == message)
    }

    @Test func orderBy() throws {
        #expect(try QueryOptionParser.orderBy("lastName") == [.ascending(p("lastName"))])
        #expect(try QueryOptionParser.orderBy("PersonCar/Car/make desc, lastName asc,length(ssn)") == [
            .descending(p("PersonCar/Car/make")), .ascending(p("lastName")), .ascending(.call(.length, [p("ssn")])),
        ])
        #expect(try QueryOptionParser.orderBy("personID add 1 desc") == [.descending(b(.add, p("personID"), .literal(.int32(1))))])
    }

    @Test(arguments: [
        ("lastName up", "$orderby: unknown direction 'up' at column 10; use asc or desc"),
        ("lastName desc asc", "$orderby: expected ',' or the end of $orderby, found 'asc' at column 15"),
        ("lastName,", "$orderby: expected an operand after ',' at column 10"),
        ("lastName desc)", "$orderby: expected ',' or the end of $orderby, found ')' at column 14"),
        ("", "$orderby: expected an operand at column 1"),
    ])
    func orderByErrors(text: String, message: String) {
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.orderBy(text) } == message)
    }

    @Test func selectAndExpand() throws {
        #expect(try QueryOptionParser.select("*") == [.all])
        #expect(try QueryOptionParser.select("firstName, PersonCar/*,PersonCar/Car ,PersonCar/createStamp") == [
            "firstName", SelectItem(PropertyPath(["PersonCar"]), isWildcard: true), "PersonCar/Car", "PersonCar/createStamp",
        ])
        #expect(try QueryOptionParser.expand("PersonCar,PersonCar/Car") == ["PersonCar", "PersonCar/Car"])
        #expect(try QueryOptionParser.expand(" A/B/C ") == [PropertyPath(["A", "B", "C"])])
    }

    @Test(arguments: [
        ("firstName,,lastName", "$select: expected a property name, found ',' at column 11"),
        ("PersonCar/", "$select: expected a property name after 'PersonCar/' at column 11"),
        ("*/a", "$select: '*' must end the path, found '/' at column 2"),
        ("a b", "$select: expected ',' between paths, found 'b' at column 3"),
        ("", "$select: expected a property name at column 1"),
        ("a,", "$select: expected a property name at column 3"),
    ])
    func selectErrors(text: String, message: String) {
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.select(text) } == message)
    }

    @Test func expandErrors() {
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.expand("*") }
            == "$expand: '*' is not allowed at column 1; name each navigation property to expand")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.expand("PersonCar/*") }
            == "$expand: '*' is not allowed at column 11; name each navigation property to expand")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.expand("A/1") }
            == "$expand: expected a property name after 'A/', found '1' at column 3")
    }

    @Test func topSkipInlineCount() throws {
        #expect(try QueryOptionParser.top("0") == 0)
        #expect(try QueryOptionParser.top("10000") == 10_000)
        #expect(try QueryOptionParser.skip("0042") == 42)
        #expect(try QueryOptionParser.inlineCount("allpages") == .allPages)
        #expect(try QueryOptionParser.inlineCount("none") == InlineCount.none)
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.top("ten") } == "$top: 'ten' is not a non-negative integer")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.top("-1") } == "$top: '-1' is not a non-negative integer")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.top("") } == "$top: '' is not a non-negative integer")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.skip("1.5") } == "$skip: '1.5' is not a non-negative integer")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.skip("99999999999999999999") } == "$skip: 99999999999999999999 is too large")
        #expect(errorMessage { () throws(ODataError) in try QueryOptionParser.inlineCount("AllPages") } == "$inlinecount: 'AllPages' is not allpages or none")
    }
}
