import Foundation
import StrataCore
import StrataSQL
import Testing

/// The SQLite wrapper that makes LIKE case-sensitive, written independently of the emitter:
/// upper-case ASCII letter number i becomes the four bytes F4 90 80 (80 + i), code point U+110000 + i.
func sqliteCaseSensitive(_ sql: String) -> String {
    var result = sql
    for (i, letter) in "ABCDEFGHIJKLMNOPQRSTUVWXYZ".enumerated() {
        result = "replace(\(result), '\(letter)', CAST(X'F49080\(String(0x80 + i, radix: 16, uppercase: true))' AS TEXT))"
    }
    return result
}

@Suite struct SQLEmitterTests {
    @Test func selectStarExpandsColumnsWithGeneratedAliases() throws {
        let sqlite = try emitted("select * from Person", .sqlite)
        #expect(sqlite.sql == #"SELECT "t1"."personID" AS "c1", "t1"."firstName" AS "c2", "t1"."lastName" AS "c3", "t1"."ssn" AS "c4", "t1"."createDate" AS "c5" FROM "Person" AS "t1""#)
        #expect(sqlite.binds == [])
        let postgres = try emitted("SELECT * FROM Person", .postgres)
        #expect(postgres.sql == sqlite.sql)
    }

    @Test func joinsWithWhereAndParameters() throws {
        let sql = "SELECT p.firstName, c.make FROM Person AS p JOIN PersonCar pc ON pc.personID = p.personID "
            + "LEFT OUTER JOIN Car c ON c.carID = pc.carID WHERE p.personID = :id AND c.make <> 'Ford'"
        let from = #" FROM "Person" AS "t1" INNER JOIN "PersonCar" AS "t2" ON "t2"."personID" = "t1"."personID" LEFT JOIN "Car" AS "t3" ON "t3"."carID" = "t2"."carID""#
        let sqlite = try emitted(sql, .sqlite, ["id": .int32(7)])
        #expect(sqlite.sql == #"SELECT "t1"."firstName" AS "c1", "t3"."make" AS "c2""# + from + #" WHERE ("t1"."personID" = ?) AND ("t3"."make" <> ?)"#)
        #expect(sqlite.binds == [.int32(7), .string("Ford")])
        let postgres = try emitted(sql, .postgres, ["id": .int32(7)])
        #expect(postgres.sql == #"SELECT "t1"."firstName" AS "c1", "t3"."make" AS "c2""# + from + #" WHERE ("t1"."personID" = $1) AND ("t3"."make" <> $2)"#)
        #expect(postgres.binds == [.int32(7), .string("Ford")])
    }

    @Test func groupByHavingOrderByLimitOffset() throws {
        let sql = "SELECT p.lastName AS family, COUNT(*) AS cars FROM Person p JOIN PersonCar pc ON pc.personID = p.personID "
            + "GROUP BY p.lastName HAVING COUNT(*) >= 2 ORDER BY cars DESC, family NULLS LAST LIMIT 10 OFFSET :skip"
        let rest = #" AS "c1", COUNT(*) AS "c2" FROM "Person" AS "t1" INNER JOIN "PersonCar" AS "t2" ON "t2"."personID" = "t1"."personID" GROUP BY "t1"."lastName" HAVING COUNT(*) >= "#
        let sqlite = try emitted(sql, .sqlite, ["skip": .int32(20)])
        #expect(sqlite.sql == #"SELECT "t1"."lastName""# + rest + "? ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS LAST LIMIT ? OFFSET ?")
        #expect(sqlite.binds == [.int32(2), .int64(10), .int64(20)])
        // The string result that `ORDER BY 1` sorts by is selected in the C collation (byte order, as on SQLite).
        let postgres = try emitted(sql, .postgres, ["skip": .int32(20)])
        #expect(postgres.sql == #"SELECT ("t1"."lastName" COLLATE "C")"# + rest + "$1 ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS LAST LIMIT $2 OFFSET $3")
        #expect(postgres.binds == [.int32(2), .int64(10), .int64(20)])
    }

    @Test func orderByExpressionGetsExplicitNullOrder() throws {
        let result = try emitted("SELECT make FROM Car ORDER BY UPPER(model), carID DESC", .postgres)
        #expect(result.sql == #"SELECT "t1"."make" AS "c1" FROM "Car" AS "t1" ORDER BY (UPPER("t1"."model") COLLATE "C") ASC NULLS FIRST, "t1"."carID" DESC NULLS LAST"#)
    }

    @Test func postgresReusesPlaceholdersForEqualValuesSoGroupingMatches() throws {
        let sql = "SELECT UPPER(make) || '-' AS m, COUNT(*) AS n FROM Car GROUP BY UPPER(make) || '-' HAVING COUNT(*) > 1"
        let postgres = try emitted(sql, .postgres)
        #expect(postgres.sql == #"SELECT UPPER("t1"."make") || $1 AS "c1", COUNT(*) AS "c2" FROM "Car" AS "t1" GROUP BY UPPER("t1"."make") || $1 HAVING COUNT(*) > $2"#)
        #expect(postgres.binds == [.string("-"), .int32(1)])
        let sqlite = try emitted(sql, .sqlite)
        #expect(sqlite.binds == [.string("-"), .string("-"), .int32(1)])
    }

    @Test func inBetweenAndCase() throws {
        let sql = "SELECT CASE WHEN carID BETWEEN 1 AND 3 THEN 'low' WHEN carID NOT IN (4, 5) THEN 'other' ELSE NULL END AS band, "
            + "CASE make WHEN 'Ford' THEN 1 ELSE 0 END AS ford FROM Car WHERE model IN ('Focus', :m) AND carID NOT BETWEEN :lo AND 9"
        let sqlite = try emitted(sql, .sqlite, ["m": .string("A4"), "lo": .int64(7)])
        #expect(sqlite.sql == #"SELECT CASE WHEN "t1"."carID" BETWEEN ? AND ? THEN ? WHEN "t1"."carID" NOT IN (?, ?) THEN ? ELSE NULL END AS "c1", "#
            + #"CASE "t1"."make" WHEN ? THEN ? ELSE ? END AS "c2" FROM "Car" AS "t1" WHERE ("t1"."model" IN (?, ?)) AND ("t1"."carID" NOT BETWEEN ? AND ?)"#)
        #expect(sqlite.binds == [.int32(1), .int32(3), .string("low"), .int32(4), .int32(5), .string("other"), .string("Ford"), .int32(1), .int32(0),
                                 .string("Focus"), .string("A4"), .int64(7), .int32(9)])
        let postgres = try emitted(sql, .postgres, ["m": .string("A4"), "lo": .int64(7)])
        #expect(postgres.sql == #"SELECT CASE WHEN "t1"."carID" BETWEEN $1 AND $2 THEN $3 WHEN "t1"."carID" NOT IN ($4, $5) THEN $6 ELSE NULL END AS "c1", "#
            + #"CASE "t1"."make" WHEN $7 THEN $1 ELSE $8 END AS "c2" FROM "Car" AS "t1" WHERE ("t1"."model" IN ($9, $10)) AND ("t1"."carID" NOT BETWEEN $11 AND $12)"#)
        #expect(postgres.binds == [.int32(1), .int32(3), .string("low"), .int32(4), .int32(5), .string("other"), .string("Ford"), .int32(0),
                                   .string("Focus"), .string("A4"), .int64(7), .int32(9)])
    }

    @Test func likeIsCaseSensitiveOnBothDatabases() throws {
        let sql = "SELECT personID FROM Person WHERE firstName LIKE 'J%' AND lastName NOT LIKE :p ESCAPE '!'"
        let sqlite = try emitted(sql, .sqlite, ["p": .string("x!_%")])
        #expect(sqlite.sql == #"SELECT "t1"."personID" AS "c1" FROM "Person" AS "t1" WHERE ("#
            + sqliteCaseSensitive(#""t1"."firstName""#) + " LIKE " + sqliteCaseSensitive("?") + #") AND ("#
            + sqliteCaseSensitive(#""t1"."lastName""#) + " NOT LIKE " + sqliteCaseSensitive("?") + " ESCAPE ?)")
        #expect(sqlite.binds == [.string("J%"), .string("x!_%"), .string("!")])
        let postgres = try emitted(sql, .postgres, ["p": .string("x!_%")])
        #expect(postgres.sql == #"SELECT "t1"."personID" AS "c1" FROM "Person" AS "t1" WHERE ("t1"."firstName" LIKE $1 ESCAPE '') AND ("t1"."lastName" NOT LIKE $2 ESCAPE $3)"#)
        #expect(postgres.binds == [.string("J%"), .string("x!_%"), .string("!")])
    }

    @Test func likeWithAConstantPatternWithoutLettersNeedsNoCaseWrapper() throws {
        let sqlite = try emitted("SELECT personID FROM Person WHERE ssn LIKE '123-%'", .sqlite)
        #expect(sqlite.sql == #"SELECT "t1"."personID" AS "c1" FROM "Person" AS "t1" WHERE "t1"."ssn" LIKE ?"#)
        #expect(sqlite.binds == [.string("123-%")])
    }

    @Test func theCaseWrapperHasTheDocumentedShape() throws {
        let wrapped = sqliteCaseSensitive("?")
        #expect(wrapped.hasPrefix("replace(replace(replace("))
        #expect(wrapped.contains("(?, 'A', CAST(X'F4908080' AS TEXT)), 'B', CAST(X'F4908081' AS TEXT))"))
        #expect(wrapped.hasSuffix(", 'Z', CAST(X'F4908099' AS TEXT))"))
    }

    @Test func arithmeticDivisionAndConcatenation() throws {
        let sql = "SELECT carID / 2 AS half, carID % 3 AS rest, carID / 2.5 AS ratio, -carID AS negative, make || ' #' || carID AS label FROM Car"
        let sqlite = try emitted(sql, .sqlite)
        // Integer arithmetic is 64-bit and checked on both: SQLite's functions, PostgreSQL's bigint.
        #expect(sqlite.sql == #"SELECT strata_div("t1"."carID", NULLIF(?, 0)) AS "c1", "t1"."carID" % NULLIF(?, 0) AS "c2", CAST("t1"."carID" AS REAL) / NULLIF(?, 0) AS "c3", "#
            + #"strata_neg("t1"."carID") AS "c4", "t1"."make" || ? || CAST("t1"."carID" AS TEXT) AS "c5" FROM "Car" AS "t1""#)
        #expect(sqlite.binds == [.int32(2), .int32(3), .decimal(Decimal(string: "2.5")!), .string(" #")])
        let postgres = try emitted(sql, .postgres)
        #expect(postgres.sql == #"SELECT (CAST("t1"."carID" AS bigint) / NULLIF(CAST($1 AS bigint), 0)) AS "c1", "t1"."carID" % NULLIF($2, 0) AS "c2", "#
            + #""t1"."carID" / NULLIF($3, 0) AS "c3", (- CAST("t1"."carID" AS bigint)) AS "c4", "t1"."make" || $4 || CAST("t1"."carID" AS TEXT) AS "c5" FROM "Car" AS "t1""#)
    }

    @Test func nestedOperationsAreParenthesized() throws {
        let result = try emitted("SELECT (1 + carID) * -(carID - 2) AS x FROM Car WHERE NOT (carID > 1 OR carID IS NULL)", .postgres)
        #expect(result.sql == #"SELECT ((CAST($1 AS bigint) + CAST("t1"."carID" AS bigint)) * (- (CAST("t1"."carID" AS bigint) - CAST($2 AS bigint)))) AS "c1" "#
            + #"FROM "Car" AS "t1" WHERE NOT (("t1"."carID" > $1) OR ("t1"."carID" IS NULL))"#)
        #expect(result.binds == [.int32(1), .int32(2)])
    }

    @Test func scalarFunctionsPerDialect() throws {
        let sql = "SELECT LOWER(make) AS a, LENGTH(model) AS b, TRIM(model) AS c, LTRIM(model, 'x') AS d, SUBSTRING(model, 2, carID) AS e, "
            + "REPLACE(model, 'a', 'b') AS f, ABS(carID) AS g, COALESCE(model, make) AS h, NULLIF(model, '') AS i FROM Car"
        let sqlite = try emitted(sql, .sqlite)
        #expect(sqlite.sql == #"SELECT LOWER("t1"."make") AS "c1", LENGTH("t1"."model") AS "c2", TRIM("t1"."model") AS "c3", LTRIM("t1"."model", ?) AS "c4", "#
            + #"SUBSTR("t1"."model", MAX(?, 1), MAX(? + "t1"."carID" - MAX(?, 1), 0)) AS "c5", (CASE WHEN ? IS NULL THEN NULL ELSE REPLACE("t1"."model", ?, ?) END) AS "c6", "#
            + #"ABS("t1"."carID") AS "c7", "#
            + #"COALESCE("t1"."model", "t1"."make") AS "c8", NULLIF("t1"."model", ?) AS "c9" FROM "Car" AS "t1""#)
        let postgres = try emitted(sql, .postgres)
        #expect(postgres.sql == #"SELECT LOWER("t1"."make") AS "c1", LENGTH("t1"."model") AS "c2", BTRIM("t1"."model") AS "c3", LTRIM("t1"."model", $1) AS "c4", "#
            + #"SUBSTR("t1"."model", $2, (CASE WHEN "t1"."carID" < 0 THEN 0 ELSE "t1"."carID" END)) AS "c5", REPLACE("t1"."model", $3, $4) AS "c6", ABS("t1"."carID") AS "c7", "#
            + #"COALESCE("t1"."model", "t1"."make") AS "c8", NULLIF("t1"."model", $5) AS "c9" FROM "Car" AS "t1""#)
        #expect(postgres.binds == [.string("x"), .int32(2), .string("a"), .string("b"), .string("")])
    }

    @Test func substrNarrowsBigintPositionsOnPostgres() throws {
        // A constant is clamped and bound as INTEGER: a position past 2^31 is past the end of any
        // string, as on SQLite, not an error.
        let constant = try emitted("SELECT SUBSTR(make, :start) AS s FROM Car", .postgres, ["start": .int64(3_000_000_000)])
        #expect(constant.sql == #"SELECT SUBSTR("t1"."make", $1) AS "c1" FROM "Car" AS "t1""#)
        #expect(constant.binds == [.int32(.max)])
        // Arithmetic is bigint on PostgreSQL even where it is typed Edm.Int32: clamped and cast, NULL kept.
        let computed = try emitted("SELECT SUBSTR(make, carID + 1) AS s FROM Car", .postgres)
        #expect(computed.sql == #"SELECT SUBSTR("t1"."make", CAST((CASE WHEN (CAST("t1"."carID" AS bigint) + CAST($1 AS bigint)) < -2147483648 THEN -2147483648 "#
            + #"WHEN (CAST("t1"."carID" AS bigint) + CAST($1 AS bigint)) > 2147483647 THEN 2147483647 ELSE (CAST("t1"."carID" AS bigint) + CAST($1 AS bigint)) END) AS INTEGER)) "#
            + #"AS "c1" FROM "Car" AS "t1""#)
    }

    @Test func roundPerDialect() throws {
        let sql = "SELECT ROUND(carID / 3.0, 2) AS a, ROUND(CAST(carID AS DOUBLE), :n) AS b FROM Car"
        let sqlite = try emitted(sql, .sqlite, ["n": .int32(1)])
        #expect(sqlite.sql == #"SELECT ROUND(CAST("t1"."carID" AS REAL) / NULLIF(?, 0), ?) AS "c1", ROUND(CAST("t1"."carID" AS REAL), ?) AS "c2" FROM "Car" AS "t1""#)
        let postgres = try emitted(sql, .postgres, ["n": .int32(-1)])
        #expect(postgres.sql == #"SELECT ROUND("t1"."carID" / NULLIF($1, 0), $2) AS "c1", "#
            + #"CAST(ROUND(CAST(CAST("t1"."carID" AS DOUBLE PRECISION) AS NUMERIC), $3) AS DOUBLE PRECISION) AS "c2" FROM "Car" AS "t1""#)
        // A negative digit count counts as 0, as on SQLite.
        #expect(postgres.binds == [.decimal(Decimal(string: "3.0")!), .int32(2), .int32(0)])
    }

    @Test func aggregatesCastToTheirDeclaredTypesOnPostgres() throws {
        let sql = "SELECT COUNT(DISTINCT make) AS a, SUM(carID) AS b, AVG(carID) AS c, MIN(model) AS d, MAX(createStamp) AS e FROM Car"
        let sqlite = try emitted(sql, .sqlite)
        #expect(sqlite.sql == #"SELECT COUNT(DISTINCT "t1"."make") AS "c1", SUM("t1"."carID") AS "c2", AVG("t1"."carID") AS "c3", MIN("t1"."model") AS "c4", MAX("t1"."createStamp") AS "c5" FROM "Car" AS "t1""#)
        let postgres = try emitted(sql, .postgres)
        #expect(postgres.sql == #"SELECT COUNT(DISTINCT "t1"."make") AS "c1", CAST(SUM("t1"."carID") AS BIGINT) AS "c2", CAST(AVG("t1"."carID") AS DOUBLE PRECISION) AS "c3", "#
            + #"MIN(("t1"."model" COLLATE "C")) AS "c4", MAX("t1"."createStamp") AS "c5" FROM "Car" AS "t1""#)
    }

    @Test func datePartsPerDialect() throws {
        let sql = "SELECT YEAR(createDate) AS y, MONTH(createDate) AS m, DAY(createDate) AS d, HOUR(createDate) AS h, MINUTE(createDate) AS i, SECOND(createDate) AS s FROM Person"
        let sqlite = try emitted(sql, .sqlite)
        let column = #""t1"."createDate""#
        #expect(sqlite.sql == "SELECT " + [("%Y", "y"), ("%m", "m"), ("%d", "d"), ("%H", "h"), ("%M", "i"), ("%S", "s")].enumerated().map { index, part in
            "CAST(strftime('\(part.0)', \(column)) AS INTEGER) AS \"c\(index + 1)\""
        }.joined(separator: ", ") + #" FROM "Person" AS "t1""#)
        let postgres = try emitted(sql, .postgres)
        #expect(postgres.sql == "SELECT CAST(EXTRACT(YEAR FROM \(column)) AS INTEGER) AS \"c1\", CAST(EXTRACT(MONTH FROM \(column)) AS INTEGER) AS \"c2\", "
            + "CAST(EXTRACT(DAY FROM \(column)) AS INTEGER) AS \"c3\", CAST(EXTRACT(HOUR FROM CAST(\(column) AS timestamp)) AS INTEGER) AS \"c4\", "
            + "CAST(EXTRACT(MINUTE FROM CAST(\(column) AS timestamp)) AS INTEGER) AS \"c5\", "
            + "CAST(FLOOR(EXTRACT(SECOND FROM CAST(\(column) AS timestamp))) AS INTEGER) AS \"c6\" FROM \"Person\" AS \"t1\"")
    }

    @Test func datePartsOfOffsetTimestampsUseUTCOnPostgres() throws {
        let catalog = SQLCatalog(tables: [.init(name: "Event", columns: [.init(name: "at", type: .dateTimeOffset)])])
        let result = try ClientSQL.check("SELECT YEAR(at) AS y FROM Event", catalog: catalog).emit(for: .postgres)
        #expect(result.sql == #"SELECT CAST(EXTRACT(YEAR FROM ("t1"."at" AT TIME ZONE 'UTC')) AS INTEGER) AS "c1" FROM "Event" AS "t1""#)
    }

    @Test func castsPerDialect() throws {
        let sql = "SELECT CAST(1.5 AS INTEGER) AS a, CAST(model AS INT) AS b, CAST(carID AS NUMERIC) AS c, CAST(carID AS DOUBLE PRECISION) AS d, CAST(carID AS VARCHAR) AS e FROM Car"
        let sqlite = try emitted(sql, .sqlite)
        #expect(sqlite.sql == #"SELECT CAST(? AS INTEGER) AS "c1", CAST("t1"."model" AS INTEGER) AS "c2", CAST("t1"."carID" AS NUMERIC) AS "c3", CAST("t1"."carID" AS REAL) AS "c4", CAST("t1"."carID" AS TEXT) AS "c5" FROM "Car" AS "t1""#)
        let postgres = try emitted(sql, .postgres)
        #expect(postgres.sql == #"SELECT CAST(TRUNC($1) AS BIGINT) AS "c1", CAST("t1"."model" AS BIGINT) AS "c2", CAST("t1"."carID" AS NUMERIC) AS "c3", CAST("t1"."carID" AS DOUBLE PRECISION) AS "c4", CAST("t1"."carID" AS TEXT) AS "c5" FROM "Car" AS "t1""#)
    }

    @Test func dateStringsAreBoundAsDateTimes() throws {
        let result = try emitted("SELECT personID FROM Person WHERE createDate BETWEEN '2009-01-01' AND :until", .sqlite, ["until": .string("2010-06-30T12:00:00")])
        #expect(result.sql == #"SELECT "t1"."personID" AS "c1" FROM "Person" AS "t1" WHERE "t1"."createDate" BETWEEN ? AND ?"#)
        #expect(result.binds == [.dateTime(ODataDateTime(year: 2009, month: 1, day: 1)!), .dateTime(ODataDateTime(year: 2010, month: 6, day: 30, hour: 12)!)])
    }

    @Test func nullIsWrittenAsTheKeywordAndBooleansAreBound() throws {
        let result = try emitted("SELECT NULL AS nothing, TRUE AS yes FROM Car WHERE (carID > 1) = :flag AND model IS NOT NULL", .postgres, ["flag": .boolean(true)])
        #expect(result.sql == #"SELECT NULL AS "c1", $1 AS "c2" FROM "Car" AS "t1" WHERE (("t1"."carID" > $2) = $1) AND ("t1"."model" IS NOT NULL)"#)
        #expect(result.binds == [.boolean(true), .int32(1)])
    }

    @Test func tableSourceHookReplacesTablesAndKeepsPostgresNumbering() throws {
        let statement = try checked("SELECT p.firstName FROM Person p JOIN PersonCar pc ON pc.personID = p.personID WHERE p.lastName = :last", ["last": .string("Smith")])
        var seen: [SQLTableReference] = []
        let hook: SQLTableSourceProvider = { table throws(ODataError) in
            seen.append(table)
            guard table.table == "Person" else { return nil }
            return filtered("Person", .equals(.column(alias: "s", name: "ownerID"), .value(.int64(42))))
        }
        let postgres = try statement.emit(for: .postgres, tableSource: hook)
        #expect(postgres.sql == #"SELECT "t1"."firstName" AS "c1" FROM (SELECT * FROM "Person" AS "s" WHERE ("s"."ownerID" = $1)) AS "t1" INNER JOIN "PersonCar" AS "t2" ON "t2"."personID" = "t1"."personID" WHERE "t1"."lastName" = $2"#)
        #expect(postgres.binds == [.int64(42), .string("Smith")])
        #expect(seen == [SQLTableReference(table: "Person", alias: "t1", clientName: "p"), SQLTableReference(table: "PersonCar", alias: "t2", clientName: "pc")])
        let sqlite = try statement.emit(for: .sqlite, tableSource: hook)
        #expect(sqlite.sql == #"SELECT "t1"."firstName" AS "c1" FROM (SELECT * FROM "Person" AS "s" WHERE ("s"."ownerID" = ?)) AS "t1" INNER JOIN "PersonCar" AS "t2" ON "t2"."personID" = "t1"."personID" WHERE "t1"."lastName" = ?"#)
        #expect(sqlite.binds == [.int64(42), .string("Smith")])
    }

    @Test func tableSourceHookMayRefuse() throws {
        let statement = try checked("SELECT carID FROM Car")
        #expect(throws: ODataError(status: 403, code: "Forbidden", message: "no")) {
            _ = try statement.emit(for: .sqlite) { _ throws(ODataError) in throw ODataError(status: 403, code: "Forbidden", message: "no") }
        }
    }

    @Test func selectListBindsComeBeforeTableSourceBindsOnSQLite() throws {
        let statement = try checked("SELECT 'x' AS tag, carID FROM Car WHERE carID > 1")
        let result = try statement.emit(for: .sqlite) { _ in filtered("Car", .binary(.notEqual, .column(alias: "s", name: "make"), .value(.string("VW")))) }
        #expect(result.sql == #"SELECT ? AS "c1", "t1"."carID" AS "c2" FROM (SELECT * FROM "Car" AS "s" WHERE ("s"."make" <> ?)) AS "t1" WHERE "t1"."carID" > ?"#)
        #expect(result.binds == [.string("x"), .string("VW"), .int32(1)])
    }

    @Test func catalogSpellingIsEmittedForCaseInsensitiveNames() throws {
        let result = try emitted("select FIRSTNAME from PERSON where PERSONID = 1", .sqlite)
        #expect(result.sql == #"SELECT "t1"."firstName" AS "c1" FROM "Person" AS "t1" WHERE "t1"."personID" = ?"#)
    }

    @Test func quotedCatalogNamesAreEscaped() throws {
        let catalog = SQLCatalog(tables: [.init(name: "Odd \"Table\"", columns: [.init(name: "a\"b", type: .int32)])])
        let result = try ClientSQL.check(#"SELECT "a""b" FROM "Odd ""Table""" AS o"#, catalog: catalog).emit(for: .postgres)
        #expect(result.sql == #"SELECT "t1"."a""b" AS "c1" FROM "Odd ""Table""" AS "t1""#)
    }

    @Test func stringsCompareAndSortByteWiseOnPostgres() throws {
        let sql = "SELECT lastName, firstName FROM Person WHERE lastName >= :from AND firstName BETWEEN 'A' AND lastName || 'z' "
            + "AND ssn = 'x' AND personID < 5 ORDER BY 1, LOWER(firstName) DESC"
        let postgres = try emitted(sql, .postgres, ["from": .string("M")])
        #expect(postgres.sql == #"SELECT ("t1"."lastName" COLLATE "C") AS "c1", "t1"."firstName" AS "c2" FROM "Person" AS "t1" WHERE "#
            + #"(("t1"."lastName" COLLATE "C") >= ($1 COLLATE "C")) AND (("t1"."firstName" COLLATE "C") BETWEEN ($2 COLLATE "C") AND (("t1"."lastName" || $3) COLLATE "C")) "#
            + #"AND ("t1"."ssn" = $4) AND ("t1"."personID" < $5) ORDER BY 1 ASC NULLS FIRST, (LOWER("t1"."firstName") COLLATE "C") DESC NULLS LAST"#)
        // SQLite compares text byte by byte already.
        let sqlite = try emitted(sql, .sqlite, ["from": .string("M")])
        #expect(!sqlite.sql.contains("COLLATE"))
    }
}

/// `SELECT * FROM table AS "s" WHERE condition`: a table source as the server's row filters make them.
private func filtered(_ table: String, _ condition: SQLTerm) -> SelectQuery {
    var query = SelectQuery(items: [SelectColumn(expression: .template(["*"]))], from: TableName(name: table), alias: "s")
    query.filter(condition)
    return query
}
