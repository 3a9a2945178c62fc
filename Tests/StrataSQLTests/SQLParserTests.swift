import Foundation
import StrataCore
import StrataSQL
import Testing

@Suite struct SQLParserTests {
    private func expression(_ text: String) throws(ODataError) -> SQLExpression {
        let statement = try SQLParser.parse("SELECT \(text) AS x")
        guard case .expression(let e, _) = statement.items[0] else { preconditionFailure("not an expression item") }
        return e
    }

    private func at(_ line: Int, _ column: Int) -> SQLSourceLocation { SQLSourceLocation(line: line, column: column) }

    @Test func statementClausesAreRead() throws {
        let s = try SQLParser.parse("select distinct p.*, firstName as \"First\" from Person p left outer join PersonCar as pc on pc.personID = p.personID "
            + "where TRUE group by 1 having count(*) > 1 order by 2 desc nulls first, firstName limit :n offset 5;")
        #expect(s.distinct)
        #expect(s.items.count == 2)
        #expect(s.items[0] == .allColumnsOf(SQLIdentifier("p", quoted: false, at: at(1, 17))))
        guard case .expression(_, let alias) = s.items[1] else { Issue.record("second item"); return }
        #expect(alias == SQLIdentifier("First", quoted: true, at: at(1, 35)))
        #expect(s.from == SQLTableName(name: SQLIdentifier("Person", quoted: false, at: at(1, 48)), alias: SQLIdentifier("p", quoted: false, at: at(1, 55))))
        #expect(s.joins.map(\.kind) == [.left])
        #expect(s.joins[0].table.alias?.name == "pc")
        #expect(s.groupBy.map(\.kind) == [.literal(.int32(1))])
        #expect(s.orderBy.map(\.descending) == [true, false])
        #expect(s.orderBy.map(\.nulls) == [.first, nil])
        #expect(s.limit?.kind == .parameter("n"))
        #expect(s.offset?.kind == .literal(.int32(5)))
    }

    @Test func precedenceFollowsStandardSQL() throws {
        let e = try expression("a OR b AND NOT c = 1 + 2 * 3")
        guard case .or(let terms) = e.kind, terms.count == 2, case .and(let conj) = terms[1].kind, case .not(let negated) = conj[1].kind,
              case .comparison(.equal, _, let rhs) = negated.kind, case .arithmetic(.add, _, let product) = rhs.kind,
              case .arithmetic(.multiply, _, _) = product.kind else {
            Issue.record("unexpected tree \(e.kind)")
            return
        }
    }

    @Test func concatenationBindsLooserThanArithmetic() throws {
        let e = try expression("'a' || 1 + 2")
        guard case .concat(let terms) = e.kind, terms.count == 2, case .arithmetic(.add, _, _) = terms[1].kind else {
            Issue.record("unexpected tree \(e.kind)")
            return
        }
    }

    @Test func andAndOrChainsStayFlat() throws {
        let e = try expression((1...100).map { "a = \($0)" }.joined(separator: " OR "))
        guard case .or(let terms) = e.kind else { Issue.record("not OR"); return }
        #expect(terms.count == 100)
        #expect(e.height == 3)
    }

    @Test func literalsGetTheirTypes() throws {
        #expect(try expression("42").kind == .literal(.int32(42)))
        #expect(try expression("3000000000").kind == .literal(.int64(3_000_000_000)))
        #expect(try expression("-9223372036854775808").kind == .literal(.int64(.min)))
        #expect(try expression("1.50").kind == .literal(.decimal(Decimal(string: "1.5")!)))
        #expect(try expression(".5").kind == .literal(.decimal(Decimal(string: "0.5")!)))
        #expect(try expression("1.5e3").kind == .literal(.double(1500)))
        #expect(try expression("'O''Brien'").kind == .literal(.string("O'Brien")))
        #expect(try expression("'a\\b'").kind == .literal(.string("a\\b")))
        #expect(try expression("null").kind == .literal(.null))
        #expect(try expression("True").kind == .literal(.boolean(true)))
    }

    @Test func minusBeforeAnExpressionNegates() throws {
        let e = try expression("- carID")
        #expect(e.kind == .negate(SQLExpression(.column(SQLColumnName(qualifier: nil, name: SQLIdentifier("carID", quoted: false, at: at(1, 10)))), at: at(1, 10))))
    }

    @Test func namesKeepQuotingAndLocation() throws {
        let e = try expression("p.\"first Name\"")
        #expect(e.kind == .column(SQLColumnName(qualifier: SQLIdentifier("p", quoted: false, at: at(1, 8)),
                                                name: SQLIdentifier("first Name", quoted: true, at: at(1, 10)))))
    }

    @Test func locationsCountLinesAndColumns() throws {
        let s = try SQLParser.parse("SELECT\n  a,\r\n\tb\rFROM t")
        guard case .expression(let b, _) = s.items[1] else { Issue.record("item"); return }
        #expect(b.location == at(3, 2))
        #expect(s.from?.name.location == at(4, 6))
    }

    @Test func functionsAreResolvedAgainstTheAllowList() throws {
        #expect(try expression("count(*)").kind == .countAll)
        let substring = try expression("substring(a, 2)")
        guard case .function(.substr, let args, false) = substring.kind else { Issue.record("not SUBSTR"); return }
        #expect(args.count == 2)
        guard case .function(.count, _, true) = try expression("COUNT(DISTINCT a)").kind else { Issue.record("not COUNT DISTINCT"); return }
    }

    @Test func caseAndCastForms() throws {
        guard case .caseWhen(let operand, let branches, let otherwise) = try expression("CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' END").kind else {
            Issue.record("not CASE")
            return
        }
        #expect(operand != nil)
        #expect(branches.count == 2)
        #expect(otherwise == nil)
        guard case .cast(_, .double) = try expression("CAST(a AS double precision)").kind else { Issue.record("not CAST"); return }
    }

    @Test func arityIsChecked() {
        #expect(throws: ODataError.badRequest("SUBSTR takes 2 or 3 arguments, not 1 at line 1, column 8", code: "SQLSyntaxError")) {
            _ = try SQLParser.parse("SELECT SUBSTR(a) FROM t")
        }
        #expect(throws: ODataError.badRequest("COALESCE takes at least 2 arguments, not 1 at line 1, column 8", code: "SQLSyntaxError")) {
            _ = try SQLParser.parse("SELECT COALESCE(a) FROM t")
        }
        #expect(throws: ODataError.badRequest("LOWER takes 1 argument, not 2 at line 1, column 8", code: "SQLSyntaxError")) {
            _ = try SQLParser.parse("SELECT LOWER(a, b) FROM t")
        }
    }

    @Test func stringsMayFollowKeywordsWithoutSpace() throws {
        let s = try SQLParser.parse("SELECT a FROM t WHERE a LIKE'J%'AND b IN('x')")
        guard case .and(let terms)? = s.filter?.kind, case .like(_, let pattern, nil, false) = terms[0].kind else { Issue.record("tree"); return }
        #expect(pattern.kind == .literal(.string("J%")))
    }

    @Test func trailingSemicolonIsAcceptedOnce() throws {
        _ = try SQLParser.parse("SELECT a FROM t;")
        #expect(throws: ODataError.badRequest("only one statement is allowed, but ; follows ';' at line 1, column 17; send one SELECT per request, with nothing after the ';'", code: "SQLNotAllowed")) {
            _ = try SQLParser.parse("SELECT a FROM t;;")
        }
    }

    @Test func nestingAndSizeLimitsAreConfigurable() {
        let limits = SQLLimits(maxLength: 60, maxDepth: 4, maxNodes: 6)
        #expect(throws: Never.self) { _ = try SQLParser.parse("SELECT (((a))) FROM t", limits: limits) }
        #expect(throws: ODataError.badRequest("expressions are nested more than 4 levels deep at line 1, column 12; simplify the expression", code: "SQLTooLarge")) {
            _ = try SQLParser.parse("SELECT ((((a)))) FROM t", limits: limits)
        }
        // Each select item and each expression node counts: a, b and c make six parts, d the seventh.
        #expect(throws: ODataError.badRequest("the query has more than 6 parts at line 1, column 17; send a smaller query", code: "SQLTooLarge")) {
            _ = try SQLParser.parse("SELECT a, b, c, d, e FROM t", limits: limits)
        }
        #expect(throws: ODataError.badRequest("the query is 61 bytes long, more than the limit of 60 at line 1, column 1", code: "SQLTooLarge")) {
            _ = try SQLParser.parse("SELECT a FROM t WHERE b = '" + String(repeating: "x", count: 33) + "'", limits: limits)
        }
    }
}
