import Foundation
import StrataCore
import StrataSQL
import Testing

/// An injection attempt and where its refusal must point.
struct Attempt: Sendable, CustomTestStringConvertible {
    var name: String
    var sql: String
    var code: String
    var messagePrefix: String
    var line: Int
    var column: Int

    init(_ name: String, _ sql: String, _ code: String, _ messagePrefix: String, line: Int, column: Int) {
        self.name = name
        self.sql = sql
        self.code = code
        self.messagePrefix = messagePrefix
        self.line = line
        self.column = column
    }

    var testDescription: String { name }
}

@Suite struct SQLInjectionTests {
    static let corpus: [Attempt] = [
        Attempt("stacked DROP", "SELECT * FROM Person; DROP TABLE Person", "SQLNotAllowed", "only one statement is allowed, but DROP follows ';'", line: 1, column: 23),
        Attempt("stacked DROP with trailing comment", "SELECT * FROM Person;DROP TABLE Person;--", "SQLNotAllowed", "comments are not allowed: found '--'", line: 1, column: 40),
        Attempt("stacked second SELECT", "SELECT * FROM Person WHERE personID = 1 LIMIT 1; SELECT * FROM Car", "SQLNotAllowed", "only one statement is allowed, but SELECT follows ';'", line: 1, column: 50),
        Attempt("stacked ATTACH", "SELECT * FROM Person; ATTACH DATABASE 'x' AS y", "SQLNotAllowed", "only one statement is allowed, but ATTACH follows ';'", line: 1, column: 23),
        Attempt("statement glued without semicolon", "SELECT * FROM Person WHERE personID = 1 DELETE FROM Person", "SQLNotAllowed", "DELETE is not allowed", line: 1, column: 41),
        Attempt("DROP as table alias", "SELECT * FROM Person DROP TABLE Person", "SQLNotAllowed", "DROP is not allowed", line: 1, column: 22),
        Attempt("classic quote break with comment", "SELECT * FROM Person WHERE firstName = '' OR 1=1 --'", "SQLNotAllowed", "comments are not allowed: found '--'", line: 1, column: 50),
        Attempt("block comment", "SELECT * FROM Person WHERE firstName = 'x' /* hidden */", "SQLNotAllowed", "comments are not allowed: found '/*'", line: 1, column: 44),
        Attempt("comment hiding a statement", "SELECT * FROM Person WHERE personID = 1 /* */; DROP TABLE Person", "SQLNotAllowed", "comments are not allowed: found '/*'", line: 1, column: 41),
        Attempt("nested comments", "SELECT * FROM Person WHERE personID = 1 /* /* nested */ */", "SQLNotAllowed", "comments are not allowed: found '/*'", line: 1, column: 41),
        Attempt("comment end", "SELECT * FROM Person WHERE personID = 1 */", "SQLNotAllowed", "comments are not allowed: found '*/'", line: 1, column: 41),
        Attempt("double minus as arithmetic", "SELECT 5--3 AS x", "SQLNotAllowed", "comments are not allowed: found '--'", line: 1, column: 9),
        Attempt("UNION SELECT from sqlite_master", "SELECT * FROM Person UNION SELECT name, sql, type, tbl_name, rootpage FROM sqlite_master", "SQLNotAllowed", "UNION is not allowed", line: 1, column: 22),
        Attempt("UNION ALL", "SELECT personID FROM Person UNION ALL SELECT carID FROM Car", "SQLNotAllowed", "UNION is not allowed", line: 1, column: 29),
        Attempt("INTERSECT", "SELECT personID FROM Person INTERSECT SELECT carID FROM Car", "SQLNotAllowed", "INTERSECT is not allowed", line: 1, column: 29),
        Attempt("sqlite_master", "SELECT * FROM sqlite_master", "SQLNotAllowed", "the system catalog sqlite_master is not available", line: 1, column: 15),
        Attempt("sqlite_schema quoted", "SELECT * FROM \"sqlite_schema\"", "SQLNotAllowed", "the system catalog sqlite_schema is not available", line: 1, column: 15),
        Attempt("pg_shadow", "SELECT usename, passwd FROM pg_shadow", "SQLNotAllowed", "the system catalog pg_shadow is not available", line: 1, column: 29),
        Attempt("schema-qualified sqlite_master", "SELECT * FROM main.sqlite_master", "SQLNotAllowed", "the schema-qualified name main.sqlite_master is not allowed", line: 1, column: 15),
        Attempt("pg_catalog", "SELECT * FROM pg_catalog.pg_user", "SQLNotAllowed", "the schema-qualified name pg_catalog.pg_user is not allowed", line: 1, column: 15),
        Attempt("information_schema", "SELECT * FROM information_schema.tables", "SQLNotAllowed", "the schema-qualified name information_schema.tables is not allowed", line: 1, column: 15),
        Attempt("quoted information_schema", "SELECT * FROM \"information_schema\".\"columns\"", "SQLNotAllowed", "the schema-qualified name \"information_schema\".\"columns\" is not allowed", line: 1, column: 15),
        Attempt("schema-qualified column", "SELECT public.Person.ssn FROM Person", "SQLNotAllowed", "names with more than two parts (schema.table.column) are not allowed", line: 1, column: 8),
        Attempt("pg_sleep", "SELECT pg_sleep(10)", "SQLNotAllowed", "the function pg_sleep is not allowed", line: 1, column: 8),
        Attempt("pg_sleep in WHERE", "SELECT * FROM Person WHERE personID = 1 AND pg_sleep(5) IS NULL", "SQLNotAllowed", "the function pg_sleep is not allowed", line: 1, column: 45),
        Attempt("qualified pg_sleep", "SELECT pg_catalog.pg_sleep(1) FROM Person", "SQLNotAllowed", "the qualified function name pg_catalog.pg_sleep is not allowed", line: 1, column: 8),
        Attempt("load_extension", "SELECT load_extension('/tmp/evil.so')", "SQLNotAllowed", "the function load_extension is not allowed", line: 1, column: 8),
        Attempt("randomblob for a slow query", "SELECT LENGTH(randomblob(1000000000)) AS n FROM Person", "SQLNotAllowed", "the function randomblob is not allowed", line: 1, column: 15),
        Attempt("current_setting", "SELECT current_setting('data_directory')", "SQLNotAllowed", "the function current_setting is not allowed", line: 1, column: 8),
        Attempt("sqlite_version", "SELECT sqlite_version()", "SQLNotAllowed", "the function sqlite_version is not allowed", line: 1, column: 8),
        Attempt("CHR to build a quote", "SELECT * FROM Person WHERE firstName = 'a' || CHR(39) || 'b'", "SQLNotAllowed", "the function CHR is not allowed", line: 1, column: 47),
        Attempt("quoted function name", "SELECT \"pg_sleep\"(1) FROM Person", "SQLNotAllowed", "a quoted function name \"pg_sleep\" is not allowed", line: 1, column: 8),
        Attempt("ATTACH", "ATTACH DATABASE '/tmp/evil.db' AS evil", "SQLNotAllowed", "ATTACH is not allowed", line: 1, column: 1),
        Attempt("PRAGMA", "PRAGMA writable_schema = 1", "SQLNotAllowed", "PRAGMA is not allowed", line: 1, column: 1),
        Attempt("COPY", "COPY Person TO '/tmp/out'", "SQLNotAllowed", "COPY is not allowed", line: 1, column: 1),
        Attempt("GRANT", "GRANT ALL ON Person TO public", "SQLNotAllowed", "GRANT is not allowed", line: 1, column: 1),
        Attempt("DELETE", "delete from Person", "SQLNotAllowed", "DELETE is not allowed", line: 1, column: 1),
        Attempt("UPDATE", "UPDATE Person SET ssn = NULL", "SQLNotAllowed", "UPDATE is not allowed", line: 1, column: 1),
        Attempt("INSERT", "INSERT INTO Person (personID) VALUES (9)", "SQLNotAllowed", "INSERT is not allowed", line: 1, column: 1),
        Attempt("DROP", "DROP TABLE Person", "SQLNotAllowed", "DROP is not allowed", line: 1, column: 1),
        Attempt("CREATE", "CREATE TABLE x (a INT)", "SQLNotAllowed", "CREATE is not allowed", line: 1, column: 1),
        Attempt("ALTER", "ALTER TABLE Person ADD COLUMN x INT", "SQLNotAllowed", "ALTER is not allowed", line: 1, column: 1),
        Attempt("TRUNCATE", "TRUNCATE Person", "SQLNotAllowed", "TRUNCATE is not allowed", line: 1, column: 1),
        Attempt("VACUUM INTO", "VACUUM INTO '/tmp/copy.db'", "SQLNotAllowed", "VACUUM is not allowed", line: 1, column: 1),
        Attempt("EXPLAIN", "EXPLAIN SELECT * FROM Person", "SQLNotAllowed", "EXPLAIN is not allowed", line: 1, column: 1),
        Attempt("SET ROLE", "SET ROLE postgres", "SQLNotAllowed", "SET is not allowed", line: 1, column: 1),
        Attempt("BEGIN", "BEGIN", "SQLNotAllowed", "BEGIN is not allowed", line: 1, column: 1),
        Attempt("VALUES", "VALUES (1)", "SQLNotAllowed", "VALUES is not allowed", line: 1, column: 1),
        Attempt("parenthesized query", "(SELECT * FROM Person)", "SQLNotAllowed", "a parenthesized query is not allowed", line: 1, column: 1),
        Attempt("right single quotation marks", "SELECT * FROM Person WHERE firstName = \u{2019}John\u{2019}", "SQLNotAllowed", "the character \u{2019} (U+2019) is not allowed", line: 1, column: 40),
        Attempt("left single quotation mark", "SELECT * FROM Person WHERE firstName = \u{2018}John\u{2018}", "SQLNotAllowed", "the character \u{2018} (U+2018) is not allowed", line: 1, column: 40),
        Attempt("fullwidth apostrophe", "SELECT * FROM Person WHERE firstName = \u{FF07}x\u{FF07}", "SQLNotAllowed", "the character \u{FF07} (U+FF07) is not allowed", line: 1, column: 40),
        Attempt("curly double quotes", "SELECT \u{201C}firstName\u{201D} FROM Person", "SQLNotAllowed", "the character \u{201C} (U+201C) is not allowed", line: 1, column: 8),
        Attempt("fullwidth semicolon", "SELECT * FROM Person\u{FF1B}DROP TABLE Person", "SQLNotAllowed", "the character \u{FF1B} (U+FF1B) is not allowed", line: 1, column: 21),
        Attempt("Greek question mark as semicolon", "SELECT * FROM Person\u{37E} DROP TABLE Person", "SQLNotAllowed", "the character \u{37E} (U+037E) is not allowed", line: 1, column: 21),
        Attempt("right-to-left override", "SELECT * FROM Person WHERE firstName = 'a' \u{202E}", "SQLNotAllowed", "the character U+202E is not allowed outside a string or quoted name", line: 1, column: 44),
        Attempt("NUL byte between statements", "SELECT * FROM Person\u{0}; DROP TABLE Person", "SQLNotAllowed", "a NUL character is not allowed", line: 1, column: 21),
        Attempt("NUL byte in a string", "SELECT * FROM Person WHERE firstName = 'a\u{0}b'", "SQLNotAllowed", "control character U+0000 is not allowed", line: 1, column: 42),
        Attempt("escape control character", "SELECT * FROM Person WHERE firstName = 'a\u{1B}b'", "SQLNotAllowed", "control character U+001B is not allowed", line: 1, column: 42),
        Attempt("backslash-escaped quote", "SELECT * FROM Person WHERE firstName = 'it\\'s' OR 1=1", "SQLSyntaxError", "a backslash does not escape a quote in SQL strings; this string ends here", line: 1, column: 44),
        Attempt("backslash quote then comment", "SELECT * FROM Person WHERE firstName = 'x\\' OR 1=1 --'", "SQLNotAllowed", "comments are not allowed: found '--'", line: 1, column: 52),
        Attempt("backslash outside a string", "SELECT * FROM Person WHERE firstName = 'a' \\", "SQLNotAllowed", "a backslash is not allowed outside a string", line: 1, column: 44),
        Attempt("dollar quoting", "SELECT * FROM Person WHERE firstName = $$x$$", "SQLNotAllowed", "'$' (dollar-quoted strings) is not allowed", line: 1, column: 40),
        Attempt("tagged dollar quoting", "SELECT * FROM Person WHERE firstName = $tag$x' OR '1'='1$tag$", "SQLNotAllowed", "'$' (dollar-quoted strings) is not allowed", line: 1, column: 40),
        Attempt("positional parameter", "SELECT * FROM Person WHERE personID = $1", "SQLNotAllowed", "positional parameters ($1) are not allowed", line: 1, column: 39),
        Attempt("question-mark placeholder", "SELECT * FROM Person WHERE personID = ?", "SQLNotAllowed", "'?' placeholders are not allowed", line: 1, column: 39),
        Attempt("E string", "SELECT * FROM Person WHERE firstName = E'\\x27 OR 1=1'", "SQLNotAllowed", "E'\u{2026}' escape strings are not allowed", line: 1, column: 40),
        Attempt("lower-case e string", "SELECT * FROM Person WHERE firstName = e'\\''", "SQLNotAllowed", "E'\u{2026}' escape strings are not allowed", line: 1, column: 40),
        Attempt("Unicode escape string", "SELECT * FROM Person WHERE firstName = U&'\\0027'", "SQLNotAllowed", "'&' is not allowed", line: 1, column: 41),
        Attempt("blob literal", "SELECT * FROM Person WHERE ssn = X'27'", "SQLNotAllowed", "X'\u{2026}' blob literals are not allowed", line: 1, column: 34),
        Attempt("national string", "SELECT * FROM Person WHERE ssn = N'x'", "SQLNotAllowed", "prefixed string literals (N'\u{2026}') are not allowed", line: 1, column: 34),
        Attempt("typed literal", "SELECT * FROM Person WHERE createDate > DATE '2009-01-01'", "SQLNotAllowed", "typed literals such as DATE '\u{2026}' are not allowed", line: 1, column: 41),
        Attempt("identifier with embedded quotes", "SELECT \"firstName\"\"; DROP TABLE Person; --\" FROM Person", "SQLUnknownName", "unknown column \"firstName\"\"; DROP TABLE Person; --\"", line: 1, column: 8),
        Attempt("table name with embedded quotes", "SELECT * FROM \"Person\"\" WHERE 1=1; --\"", "SQLUnknownName", "unknown table \"Person\"\" WHERE 1=1; --\"", line: 1, column: 15),
        Attempt("backquoted name", "SELECT * FROM `Person`", "SQLNotAllowed", "'`' is not allowed", line: 1, column: 15),
        Attempt("bracketed name", "SELECT * FROM [Person]", "SQLNotAllowed", "'[' is not allowed", line: 1, column: 15),
        Attempt("huge integer", "SELECT * FROM Person WHERE personID = 99999999999999999999", "SQLSyntaxError", "the integer 99999999999999999999 is out of range", line: 1, column: 39),
        Attempt("huge negative integer", "SELECT * FROM Person WHERE personID = -9223372036854775809", "SQLSyntaxError", "the integer -9223372036854775809 is out of range", line: 1, column: 39),
        Attempt("huge exponent", "SELECT * FROM Person WHERE personID = 1e999", "SQLSyntaxError", "the number 1e999 is out of range", line: 1, column: 39),
        Attempt("decimal beyond 38 digits", "SELECT 1.2345678901234567890123456789012345678901 AS x", "SQLSyntaxError", "the number 1.2345678901234567890123\u{2026} has more than 38 digits", line: 1, column: 8),
        Attempt("hexadecimal", "SELECT * FROM Person WHERE personID = 0x41", "SQLSyntaxError", "malformed number starting 0x", line: 1, column: 39),
        Attempt("unterminated string", "SELECT * FROM Person WHERE firstName = 'unterminated", "SQLSyntaxError", "unterminated string starting", line: 1, column: 40),
        Attempt("unterminated quoted name", "SELECT \"firstName FROM Person", "SQLSyntaxError", "unterminated quoted name starting", line: 1, column: 8),
        Attempt("WITH", "WITH x AS (SELECT 1) SELECT * FROM x", "SQLNotAllowed", "WITH (common table expressions) is not allowed", line: 1, column: 1),
        Attempt("window function", "SELECT COUNT(*) OVER (PARTITION BY firstName) FROM Person", "SQLNotAllowed", "window functions (OVER) are not allowed", line: 1, column: 17),
        Attempt("aggregate FILTER", "SELECT COUNT(*) FILTER (WHERE personID > 1) FROM Person", "SQLNotAllowed", "FILTER clauses on aggregates are not allowed", line: 1, column: 17),
        Attempt("subquery in IN", "SELECT * FROM Person WHERE personID IN (SELECT personID FROM PersonCar)", "SQLNotAllowed", "subqueries are not allowed", line: 1, column: 41),
        Attempt("scalar subquery", "SELECT * FROM Person WHERE personID = 1 AND (SELECT COUNT(*) FROM Car) > 0", "SQLNotAllowed", "subqueries are not allowed", line: 1, column: 46),
        Attempt("EXISTS", "SELECT * FROM Person WHERE EXISTS (SELECT 1)", "SQLNotAllowed", "subqueries (EXISTS) are not allowed", line: 1, column: 28),
        Attempt("ANY", "SELECT * FROM Person WHERE personID = ANY (SELECT carID FROM Car)", "SQLNotAllowed", "subqueries (ANY) are not allowed", line: 1, column: 39),
        Attempt("subquery in FROM", "SELECT * FROM (SELECT * FROM sqlite_master) m", "SQLNotAllowed", "subqueries in FROM are not allowed", line: 1, column: 15),
        Attempt("table function", "SELECT * FROM generate_series(1, 1000000000)", "SQLNotAllowed", "table functions such as generate_series(\u{2026}) are not allowed", line: 1, column: 15),
        Attempt("comma join", "SELECT * FROM Person p, sqlite_master m", "SQLNotAllowed", "comma-separated tables in FROM are not allowed", line: 1, column: 23),
        Attempt("NATURAL JOIN", "SELECT * FROM Person NATURAL JOIN PersonCar", "SQLNotAllowed", "NATURAL JOIN is not allowed", line: 1, column: 22),
        Attempt("CROSS JOIN", "SELECT * FROM Person CROSS JOIN Car", "SQLNotAllowed", "CROSS JOIN is not allowed", line: 1, column: 22),
        Attempt("JOIN USING", "SELECT * FROM Person JOIN PersonCar USING (personID)", "SQLNotAllowed", "JOIN \u{2026} USING is not allowed", line: 1, column: 37),
        Attempt("SELECT INTO", "SELECT * FROM Person INTO OUTFILE '/tmp/x'", "SQLNotAllowed", "SELECT INTO is not allowed", line: 1, column: 22),
        Attempt("FOR UPDATE", "SELECT * FROM Person LIMIT 1 FOR UPDATE", "SQLNotAllowed", "locking clauses (FOR UPDATE, FOR SHARE) are not allowed", line: 1, column: 30),
        Attempt("PostgreSQL cast", "SELECT * FROM Person WHERE personID = 1::text", "SQLNotAllowed", "'::' casts are not allowed", line: 1, column: 40),
        Attempt("COLLATE", "SELECT * FROM Person WHERE firstName = 'a' COLLATE \"C\"", "SQLNotAllowed", "COLLATE is not allowed", line: 1, column: 44),
        Attempt("ILIKE", "SELECT * FROM Person WHERE firstName ILIKE 'j%'", "SQLNotAllowed", "ILIKE is not allowed", line: 1, column: 38),
        Attempt("SIMILAR TO", "SELECT * FROM Person WHERE firstName SIMILAR TO 'j%'", "SQLNotAllowed", "SIMILAR is not allowed", line: 1, column: 38),
        Attempt("GLOB", "SELECT * FROM Person WHERE firstName GLOB 'J*'", "SQLNotAllowed", "GLOB is not allowed", line: 1, column: 38),
        Attempt("REGEXP", "SELECT * FROM Person WHERE firstName REGEXP '^J'", "SQLNotAllowed", "REGEXP is not allowed", line: 1, column: 38),
        Attempt("regex operator", "SELECT * FROM Person WHERE firstName ~ '^J'", "SQLNotAllowed", "'~' is not allowed", line: 1, column: 38),
        Attempt("MySQL comment", "SELECT * FROM Person WHERE firstName = 'a'# comment", "SQLNotAllowed", "'#' is not allowed", line: 1, column: 43),
        Attempt("bitwise or", "SELECT personID | 1 AS x FROM Person", "SQLNotAllowed", "'|' is not allowed", line: 1, column: 17),
        Attempt("OFFSET without LIMIT", "SELECT * FROM Person OFFSET 5", "SQLSyntaxError", "OFFSET without LIMIT", line: 1, column: 22),
        Attempt("LIMIT with comma", "SELECT * FROM Person LIMIT 1, 2", "SQLNotAllowed", "LIMIT n, m is not allowed", line: 1, column: 29),
        Attempt("LIMIT expression", "SELECT * FROM Person LIMIT (SELECT 1)", "SQLSyntaxError", "LIMIT takes an integer or a :parameter, not (", line: 1, column: 28),
        Attempt("unknown table", "SELECT * FROM Persons", "SQLUnknownName", "unknown table Persons", line: 1, column: 15),
        Attempt("unknown column", "SELECT salary FROM Person", "SQLUnknownName", "unknown column salary", line: 1, column: 8),
        Attempt("ambiguous column", "SELECT carID FROM Car c JOIN PersonCar pc ON pc.carID = c.carID", "SQLUnknownName", "the column name carID is ambiguous", line: 1, column: 8),
        Attempt("empty query", "", "SQLSyntaxError", "the query is empty", line: 1, column: 1),
        Attempt("only a semicolon", ";", "SQLSyntaxError", "a query must start with SELECT, not ;", line: 1, column: 1),
    ]

    @Test(arguments: corpus) func attemptIsRefusedWithItsLocation(_ attempt: Attempt) throws {
        let error = try #require(refusal(attempt.sql))
        #expect(error.status == 400)
        #expect(error.code == attempt.code)
        #expect(error.message.hasPrefix(attempt.messagePrefix), "\(error.message)")
        #expect(error.message.contains(" at line \(attempt.line), column \(attempt.column)"), "\(error.message)")
    }

    @Test func deepParenthesesAreRefused() {
        let sql = "SELECT " + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000) + " AS x"
        #expect(refusal(sql) == .badRequest("expressions are nested more than 48 levels deep at line 1, column 56; simplify the expression", code: "SQLTooLarge"))
    }

    @Test func deepNotChainsAreRefused() {
        let sql = "SELECT personID FROM Person WHERE " + String(repeating: "NOT ", count: 3000) + "TRUE"
        #expect(refusal(sql)?.message.hasPrefix("expressions are nested more than 48 levels deep") == true)
    }

    @Test func deepMinusChainsAreRefused() {
        let sql = "SELECT " + String(repeating: "- ", count: 3000) + "personID AS x FROM Person"
        #expect(refusal(sql)?.message.hasPrefix("expressions are nested more than 48 levels deep") == true)
    }

    @Test func longArithmeticChainsAreRefusedByHeight() {
        let sql = "SELECT " + Array(repeating: "personID", count: 60).joined(separator: " + ") + " AS x FROM Person"
        #expect(refusal(sql)?.message.hasPrefix("expressions are nested more than 48 levels deep") == true)
    }

    @Test func deepFunctionNestingIsRefused() {
        let sql = "SELECT " + String(repeating: "ABS(", count: 200) + "1" + String(repeating: ")", count: 200) + " AS x"
        #expect(refusal(sql)?.code == "SQLTooLarge")
    }

    @Test func oversizeInputIsRefusedBeforeParsing() {
        let sql = "SELECT '" + String(repeating: "x", count: 20_000) + "' AS x; DROP TABLE Person"
        #expect(refusal(sql) == .badRequest("the query is 20033 bytes long, more than the limit of 16384 at line 1, column 1", code: "SQLTooLarge"))
    }

    @Test func tooManyNodesAreRefused() {
        let sql = "SELECT personID FROM Person WHERE personID IN (" + Array(repeating: "1", count: 2500).joined(separator: ",") + ")"
        #expect(refusal(sql)?.message.hasPrefix("the query has more than 2000 parts") == true)
    }

    @Test func longNamesAreRefused() {
        #expect(refusal("SELECT " + String(repeating: "a", count: 200) + " FROM Person") == .badRequest(
            "a name of 200 characters is longer than the limit of 128 at line 1, column 8", code: "SQLTooLarge"))
    }

    /// Text that looks like SQL inside strings, quoted names and parameter values stays data:
    /// it is bound or dropped, never written into the emitted SQL.
    @Test func hostileTextInsideValuesAndNamesNeverReachesTheSQL() throws {
        let hostile = "'; DROP TABLE Person; --"
        let sql = "SELECT firstName AS \"x\"\" FROM Person; --\", 'a''; DELETE FROM Car; /*' AS y FROM Person WHERE lastName = :p OR ssn = '\\' ORDER BY 1"
        for dialect in SQLDialect.allCases {
            let statement = try checked(sql, ["p": .string(hostile)])
            #expect(statement.columns.map(\.name) == ["x\" FROM Person; --", "y"])
            let result = try statement.emit(for: dialect)
            for fragment in ["DROP", "DELETE", "--", "/*", ";", "'a"] { #expect(!result.sql.contains(fragment), "\(fragment) in \(result.sql)") }
            #expect(result.binds == [.string("a'; DELETE FROM Car; /*"), .string(hostile), .string("\\")])
        }
    }
}
