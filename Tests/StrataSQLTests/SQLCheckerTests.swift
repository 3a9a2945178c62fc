import Foundation
import StrataCore
import StrataSQL
import Testing

@Suite struct SQLCheckerTests {
    @Test func resultColumnsHaveNamesTypesAndSources() throws {
        let s = try checked("SELECT p.*, c.make AS brand, COUNT(*) AS n, 1.5, CAST(c.carID AS TEXT) AS id, NULL AS nothing, c.carID / 2 AS half "
            + "FROM Person p JOIN PersonCar pc ON pc.personID = p.personID JOIN Car c ON c.carID = pc.carID "
            + "GROUP BY p.personID, p.firstName, p.lastName, p.ssn, p.createDate, c.make, c.carID")
        #expect(s.columns.map(\.name) == ["personID", "firstName", "lastName", "ssn", "createDate", "brand", "n", "column8", "id", "nothing", "half"])
        #expect(s.columns.map(\.type) == [.int32, .string, .string, .string, .dateTime, .string, .int64, .decimal, .string, .string, .int32])
        #expect(s.columns[0].source == SQLResultColumn.Source(table: "Person", column: "personID"))
        #expect(s.columns[5].source == SQLResultColumn.Source(table: "Car", column: "make"))
        #expect(s.columns[6].source == nil)
        #expect(s.tables == [
            SQLTableReference(table: "Person", alias: "t1", clientName: "p"),
            SQLTableReference(table: "PersonCar", alias: "t2", clientName: "pc"),
            SQLTableReference(table: "Car", alias: "t3", clientName: "c"),
        ])
    }

    @Test func typeRulesForExpressions() throws {
        let s = try checked("SELECT carID + 1 AS a, carID + CAST(2 AS BIGINT) AS b, carID * 1.5 AS c, carID / 2.5e0 AS d, SUM(carID) AS e, AVG(carID) AS f, "
            + "MAX(model) AS g, ROUND(carID) AS h, ROUND(CAST(carID AS REAL)) AS i, LENGTH(model) AS j, YEAR(createStamp) AS k, "
            + "COALESCE(manufactureDate, '2000-01-01') AS l, carID > 2 AS m, make || carID AS n, CASE WHEN TRUE THEN 1 ELSE 2.5 END AS o FROM Car GROUP BY carID, model, make, createStamp, manufactureDate")
        #expect(s.columns.map(\.type) == [.int32, .int64, .decimal, .double, .int64, .double, .string, .decimal, .double, .int32, .int32,
                                          .dateTime, .boolean, .string, .decimal])
    }

    @Test func parametersAreListedAndTyped() throws {
        let s = try checked("SELECT :label AS label, carID FROM Car WHERE carID > :min AND make = :make OR carID = :min LIMIT :n",
                            ["label": .string("x"), "min": .int64(1), "make": .string("Ford"), "n": .int32(5), "unused": .boolean(true)])
        #expect(s.parameters == ["label", "min", "make", "n"])
        #expect(s.columns[0].type == .string)
        #expect(s.limit == 5)
        #expect(s.offset == nil)
    }

    @Test func missingParameterIsNamed() {
        #expect(refusal("SELECT carID FROM Car WHERE carID = :id") == .badRequest(
            "the parameter :id has no value at line 1, column 37; send it in \"parameters\"", code: "SQLUnknownName"))
    }

    @Test func parameterNamesAreCaseSensitive() {
        #expect(refusal("SELECT carID FROM Car WHERE carID = :ID", ["id": .int32(1)])?.code == "SQLUnknownName")
    }

    @Test func limitParameterMustBeANonNegativeWholeNumber() {
        #expect(refusal("SELECT carID FROM Car LIMIT :n", ["n": .int32(-1)]) == .badRequest(
            "LIMIT needs a whole number of at least 0, not -1 at line 1, column 29", code: "SQLTypeMismatch"))
        #expect(refusal("SELECT carID FROM Car LIMIT 5 OFFSET :n", ["n": .string("5")])?.code == "SQLTypeMismatch")
    }

    @Test func unquotedNamesMatchExactlyThenIgnoringCase() throws {
        let catalog = SQLCatalog(tables: [
            .init(name: "T", columns: [.init(name: "Name", type: .string), .init(name: "name", type: .string), .init(name: "Other", type: .int32)]),
        ])
        let exact = try ClientSQL.check("SELECT name, Name, other FROM t", catalog: catalog)
        #expect(exact.columns.map(\.source?.column) == ["name", "Name", "Other"])
        #expect(throws: ODataError.badRequest("the column name NAME is ambiguous at line 1, column 8; it could be T.\"Name\" or T.\"name\"; qualify or quote it",
                                              code: "SQLUnknownName")) {
            _ = try ClientSQL.check("SELECT NAME FROM T", catalog: catalog)
        }
        #expect(throws: ODataError.badRequest("unknown column \"other\" at line 1, column 8; columns here are Name, name, Other", code: "SQLUnknownName")) {
            _ = try ClientSQL.check("SELECT \"other\" FROM T", catalog: catalog)
        }
    }

    @Test func tableNamesFollowTheSameRule() throws {
        let catalog = SQLCatalog(tables: [.init(name: "Item", columns: [.init(name: "a", type: .int32)]), .init(name: "ITEM", columns: [.init(name: "a", type: .int32)])])
        #expect(try ClientSQL.check("SELECT a FROM ITEM", catalog: catalog).tables[0].table == "ITEM")
        #expect(throws: ODataError.badRequest("the table name item is ambiguous at line 1, column 15; quote the exact name: \"Item\" or \"ITEM\"", code: "SQLUnknownName")) {
            _ = try ClientSQL.check("SELECT a FROM item", catalog: catalog)
        }
        #expect(throws: ODataError.badRequest("unknown table \"item\" at line 1, column 15; tables are ITEM, Item", code: "SQLUnknownName")) {
            _ = try ClientSQL.check("SELECT a FROM \"item\"", catalog: catalog)
        }
    }

    @Test func unreadableTablesAreForbiddenAndNotListed() {
        #expect(throws: ODataError(status: 403, code: "Forbidden", message: "reading table Person is not allowed for this caller at line 1, column 71")) {
            _ = try checked("SELECT c.make FROM Car c JOIN PersonCar pc ON pc.carID = c.carID JOIN Person p ON p.personID = pc.personID",
                            canRead: { $0 != "Person" })
        }
        #expect(throws: ODataError.badRequest("unknown table Persons at line 1, column 15; tables are Car, PersonCar", code: "SQLUnknownName")) {
            _ = try checked("SELECT * FROM Persons", canRead: { $0 != "Person" })
        }
    }

    @Test func rightsAreAskedForEveryTableReference() throws {
        var asked: [String] = []
        _ = try checked("SELECT a.personID FROM Person a JOIN Person b ON b.personID = a.personID", canRead: { asked.append($0); return true })
        #expect(asked == ["Person", "Person"])
    }

    @Test func aliasesHideTableNamesAndMustBeUnique() {
        #expect(refusal("SELECT Person.firstName FROM Person p") == .badRequest(
            "Person is not a name in this query at line 1, column 8; the table Person is called p here", code: "SQLUnknownName"))
        #expect(refusal("SELECT 1 AS x FROM Person JOIN Person ON TRUE") == .badRequest(
            "the name Person is used for two tables (also at line 1, column 20) at line 1, column 32; give each table its own alias, as in JOIN Person AS x2",
            code: "SQLSyntaxError"))
    }

    @Test func joinConditionsSeeOnlyTablesJoinedSoFar() {
        #expect(refusal("SELECT p.personID FROM Person p JOIN Car c ON c.carID = pc.carID JOIN PersonCar pc ON pc.personID = p.personID") == .badRequest(
            "pc is not joined yet here at line 1, column 57; JOIN … ON may only use the tables joined before it and the one it joins", code: "SQLUnknownName"))
    }

    @Test func groupingFollowsPostgreSQLsRule() throws {
        #expect(refusal("SELECT firstName, COUNT(*) AS n FROM Person") == .badRequest(
            "the column Person.firstName must be in GROUP BY or inside an aggregate function at line 1, column 8", code: "SQLNotAllowed"))
        #expect(refusal("SELECT lastName FROM Person GROUP BY firstName") == .badRequest(
            "the column Person.lastName must be in GROUP BY or inside an aggregate function at line 1, column 8", code: "SQLNotAllowed"))
        #expect(refusal("SELECT firstName FROM Person GROUP BY firstName ORDER BY lastName")?.message.hasPrefix("the column Person.lastName must be in GROUP BY") == true)
        _ = try checked("SELECT UPPER(firstName) AS f, COUNT(*) AS n FROM Person GROUP BY UPPER(firstName) ORDER BY COUNT(*) DESC")
        _ = try checked("SELECT UPPER(firstName) AS f FROM Person GROUP BY f")
        _ = try checked("SELECT lastName AS l, MAX(personID) AS m FROM Person GROUP BY 1 HAVING MAX(personID) > 2")
    }

    @Test func aggregatesOnlyWhereTheyBelong() {
        #expect(refusal("SELECT personID FROM Person WHERE COUNT(*) > 1") == .badRequest(
            "the aggregate function COUNT is not allowed in WHERE at line 1, column 35; conditions on aggregates go in HAVING", code: "SQLNotAllowed"))
        #expect(refusal("SELECT SUM(COUNT(*)) AS x FROM Person") == .badRequest("aggregate functions cannot be nested at line 1, column 12", code: "SQLNotAllowed"))
        #expect(refusal("SELECT COUNT(*) AS n FROM Person GROUP BY 1") == .badRequest(
            "GROUP BY 1 refers to an aggregate at line 1, column 43; group by plain columns or expressions", code: "SQLNotAllowed"))
    }

    @Test func orderByPositionsAndNames() throws {
        #expect(refusal("SELECT firstName FROM Person ORDER BY 2") == .badRequest(
            "position 2 is not a result column at line 1, column 39; the query returns 1 column", code: "SQLSyntaxError"))
        #expect(refusal("SELECT DISTINCT firstName FROM Person ORDER BY lastName") == .badRequest(
            "ORDER BY of a SELECT DISTINCT must use result columns at line 1, column 48; add the expression to the select list or order by a result column",
            code: "SQLNotAllowed"))
        let distinct = try emitted("SELECT DISTINCT UPPER(firstName) AS f FROM Person ORDER BY UPPER(firstName) DESC", .postgres)
        #expect(distinct.sql.hasSuffix("ORDER BY 1 DESC NULLS LAST"))
        let alias = try emitted("SELECT lastName AS firstName FROM Person ORDER BY firstName", .postgres)
        #expect(alias.sql.hasSuffix("ORDER BY 1 ASC NULLS FIRST"))
    }

    @Test func resultNamesMustBeUnique() {
        #expect(refusal("SELECT * FROM Person p JOIN PersonCar pc ON pc.personID = p.personID") == .badRequest(
            "the result column name personID appears twice (first at line 1, column 8) at line 1, column 8; give one of them another name with AS",
            code: "SQLSyntaxError"))
        #expect(refusal("SELECT firstName, lastName AS firstName FROM Person")?.message.hasPrefix("the result column name firstName appears twice") == true)
    }

    @Test func typeMismatchesAreRefused() {
        #expect(refusal("SELECT carID FROM Car WHERE make = 1") == .badRequest(
            "'=' cannot mix Edm.String and Edm.Int32 at line 1, column 29; compare values of one type; CAST converts between numbers and strings",
            code: "SQLTypeMismatch"))
        #expect(refusal("SELECT carID FROM Car WHERE carID") == .badRequest(
            "WHERE needs a condition (Edm.Boolean), not Edm.Int32 at line 1, column 29; compare the value, as in x <> 0", code: "SQLTypeMismatch"))
        #expect(refusal("SELECT make - 1 AS x FROM Car") == .badRequest("'-' cannot combine Edm.String and Edm.Int32 at line 1, column 8; use || to join strings",
                                                                         code: "SQLTypeMismatch"))
        #expect(refusal("SELECT carID % 1.5 AS x FROM Car") == .badRequest("'%' cannot combine Edm.Int32 and Edm.Decimal at line 1, column 8; % takes whole numbers",
                                                                            code: "SQLTypeMismatch"))
        #expect(refusal("SELECT carID FROM Car WHERE carID LIKE '1%'") == .badRequest(
            "LIKE compares strings, not Edm.Int32 at line 1, column 29; convert it with CAST(… AS TEXT)", code: "SQLTypeMismatch"))
        #expect(refusal("SELECT carID FROM Car WHERE make LIKE 'a%' ESCAPE 'ab'")?.message.hasPrefix("ESCAPE needs one character that is not a letter") == true)
        #expect(refusal("SELECT carID FROM Car WHERE make LIKE 'a%' ESCAPE 'x'")?.code == "SQLTypeMismatch")
        #expect(refusal("SELECT carID FROM Car WHERE createStamp > 'soon'") == .badRequest(
            "'soon' is not a valid Edm.DateTime at line 1, column 43; write it as 2009-11-01 or 2009-11-01T13:20:00", code: "SQLTypeMismatch"))
        #expect(refusal("SELECT CAST(createStamp AS TEXT) AS t FROM Car")?.message.hasPrefix("CAST from Edm.DateTime is not allowed") == true)
        #expect(refusal("SELECT SUBSTR(make, '1') AS s FROM Car") == .badRequest(
            "argument 2 of SUBSTR must be a whole number, not Edm.String at line 1, column 21", code: "SQLTypeMismatch"))
        #expect(refusal("SELECT YEAR(make) AS y FROM Car")?.code == "SQLTypeMismatch")
        #expect(refusal("SELECT CASE WHEN TRUE THEN 'a' ELSE 1 END AS x FROM Car")?.message.hasPrefix("the results of CASE cannot mix Edm.String and Edm.Int32") == true)
    }

    @Test func guidAndDateConstantsAreConverted() throws {
        let catalog = SQLCatalog(tables: [.init(name: "Doc", columns: [.init(name: "id", type: .guid), .init(name: "at", type: .time)])])
        let uuid = "12345678-AAAA-BBBB-CCCC-DDDDEEEEFFFF"
        let result = try ClientSQL.check("SELECT id FROM Doc WHERE id IN ('\(uuid)') AND at < '13:20'", catalog: catalog).emit(for: .postgres)
        #expect(result.binds == [.guid(UUID(uuidString: uuid)!), .time(ODataTime(hour: 13, minute: 20)!)])
    }

    @Test func catalogFromAServiceModel() throws {
        let person = EntityType(name: "Person", namespace: "demo", properties: [
            EntityProperty(name: "personID", type: .int32, isNullable: false), EntityProperty(name: "firstName", type: .string),
        ], keyNames: ["personID"])
        let model = ServiceModel(serviceName: "cardealer", namespace: "demo", containerName: "c", entityTypes: [person],
                                 entitySets: [EntitySet(name: "People", entityTypeName: "Person")], associations: [])
        let catalog = SQLCatalog(model: model)
        #expect(catalog.tables == [SQLCatalog.Table(name: "People", columns: [.init(name: "personID", type: .int32, isNullable: false), .init(name: "firstName", type: .string)])])
        #expect(try ClientSQL.check("SELECT firstName FROM People", catalog: catalog).columns == [
            SQLResultColumn(name: "firstName", type: .string, source: .init(table: "People", column: "firstName")),
        ])
    }

    @Test func queriesWithoutFromAreConstants() throws {
        let result = try emitted("SELECT 1 + 2 AS three", .sqlite)
        #expect(result.sql == #"SELECT strata_add(?, ?) AS "c1""#)
        #expect(refusal("SELECT *") == .badRequest("SELECT * needs FROM and a table at line 1, column 8", code: "SQLSyntaxError"))
    }
}
