import Foundation
import StrataCore
import StrataSQL
import Testing

/// `ORDER BY` says `NULLS FIRST/LAST` only where a NULL can occur: PostgreSQL reads a key or
/// NOT NULL column's order off its index only when the clause is absent.
@Suite struct SQLOrderNullsTests {
    /// The car dealer's shape as a service model: keys declared nullable on purpose (the catalog
    /// must treat keys as never null by themselves), `lastName` and `make` NOT NULL.
    static let catalog: SQLCatalog = {
        let person = EntityType(name: "Person", namespace: "demo", properties: [
            EntityProperty(name: "personID", type: .int32), EntityProperty(name: "firstName", type: .string),
            EntityProperty(name: "lastName", type: .string, isNullable: false),
        ], keyNames: ["personID"])
        let car = EntityType(name: "Car", namespace: "demo", properties: [
            EntityProperty(name: "carID", type: .int32), EntityProperty(name: "make", type: .string, isNullable: false),
            EntityProperty(name: "model", type: .string),
        ], keyNames: ["carID"])
        let personCar = EntityType(name: "PersonCar", namespace: "demo", properties: [
            EntityProperty(name: "personCarID", type: .int32), EntityProperty(name: "personID", type: .int32, isNullable: false),
            EntityProperty(name: "carID", type: .int32, isNullable: false),
        ], keyNames: ["personCarID"])
        let model = ServiceModel(serviceName: "cardealer", namespace: "demo", containerName: "c", entityTypes: [person, car, personCar],
                                 entitySets: [EntitySet(name: "Person", entityTypeName: "Person"), EntitySet(name: "Car", entityTypeName: "Car"),
                                              EntitySet(name: "PersonCar", entityTypeName: "PersonCar")],
                                 associations: [])
        return SQLCatalog(model: model)
    }()

    /// The emitted `ORDER BY` clause (up to `LIMIT`, if any) for PostgreSQL, after checking that
    /// SQLite gets the same clause with `?` placeholders and without PostgreSQL's `COLLATE "C"`.
    static func orderBy(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let statement = try ClientSQL.check(sql, catalog: catalog)
        let postgres = try statement.emit(for: .postgres).sql
        let sqlite = try statement.emit(for: .sqlite).sql
        let start = try #require(postgres.range(of: " ORDER BY "), "no ORDER BY in \(postgres)", sourceLocation: sourceLocation).upperBound
        let end = postgres.range(of: " LIMIT ", range: start..<postgres.endIndex)?.lowerBound ?? postgres.endIndex
        let order = String(postgres[start..<end])
        let placeholders = order.replacing(#/\$[0-9]+/#, with: "?")
            .replacing(#/\(((?:[^()]|\([^()]*\))*) COLLATE "C"\)/#) { String($0.output.1) }
        #expect(sqlite.contains(" ORDER BY " + placeholders), "SQLite: \(sqlite)", sourceLocation: sourceLocation)
        return order
    }

    @Test func catalogFromModelKnowsWhichColumnsAreNeverNull() throws {
        let person = try #require(Self.catalog.table(named: "Person"))
        #expect(person.columns.map(\.isNullable) == [false, true, false], "key, nullable, NOT NULL")
        #expect(SQLCatalog.Column(name: "x", type: .int32).isNullable, "a catalog that does not say is taken as nullable")
    }

    @Test func keyAndNotNullColumnsAreOrderedWithoutNullsClause() throws {
        #expect(try Self.orderBy("SELECT firstName FROM Person ORDER BY personID LIMIT 100") == #""t1"."personID" ASC"#)
        #expect(try Self.orderBy("SELECT firstName FROM Person ORDER BY personID DESC") == #""t1"."personID" DESC"#)
        // A selected column is ordered by position; the position stands for the same never-null column.
        #expect(try Self.orderBy("SELECT personID, firstName FROM Person ORDER BY personID") == "1 ASC")
        #expect(try Self.orderBy("SELECT * FROM Person ORDER BY lastName DESC, 1") == "3 DESC, 1 ASC")
        // The client's own placement cannot change where no NULL exists, so it is dropped too.
        #expect(try Self.orderBy("SELECT firstName FROM Person p ORDER BY p.personID NULLS FIRST") == #""t1"."personID" ASC"#)
        #expect(try Self.orderBy("SELECT lastName AS l FROM Person ORDER BY l DESC NULLS LAST") == "1 DESC")
    }

    @Test func nullableColumnsAndExpressionsKeepTheNullsClause() throws {
        #expect(try Self.orderBy("SELECT personID FROM Person ORDER BY firstName") == #"("t1"."firstName" COLLATE "C") ASC NULLS FIRST"#)
        #expect(try Self.orderBy("SELECT personID FROM Person ORDER BY firstName DESC") == #"("t1"."firstName" COLLATE "C") DESC NULLS LAST"#)
        #expect(try Self.orderBy("SELECT firstName FROM Person ORDER BY 1") == "1 ASC NULLS FIRST")
        #expect(try Self.orderBy("SELECT personID FROM Person ORDER BY firstName NULLS LAST") == #"("t1"."firstName" COLLATE "C") ASC NULLS LAST"#)
        // An expression over never-null columns is not looked into.
        // (Integer arithmetic is written differently per database: checked functions on SQLite.)
        let sum = try ClientSQL.check("SELECT firstName FROM Person ORDER BY personID + 0", catalog: Self.catalog)
        #expect(try sum.emit(for: .postgres).sql.hasSuffix(#" ORDER BY (CAST("t1"."personID" AS bigint) + CAST($1 AS bigint)) ASC NULLS FIRST"#))
        #expect(try sum.emit(for: .sqlite).sql.hasSuffix(#" ORDER BY strata_add("t1"."personID", ?) ASC NULLS FIRST"#))
        #expect(try Self.orderBy("SELECT firstName FROM Person ORDER BY UPPER(lastName) DESC") == #"(UPPER("t1"."lastName") COLLATE "C") DESC NULLS LAST"#)
        #expect(try Self.orderBy("SELECT lastName, COUNT(*) AS n FROM Person GROUP BY lastName ORDER BY n DESC, lastName")
                == "2 DESC NULLS LAST, 1 ASC")
    }

    @Test func columnsOfTheOptionalSideOfALeftJoinKeepTheNullsClause() throws {
        let left = "SELECT p.firstName FROM Person p LEFT JOIN PersonCar pc ON pc.personID = p.personID LEFT JOIN Car c ON c.carID = pc.carID "
        #expect(try Self.orderBy(left + "ORDER BY c.carID") == #""t3"."carID" ASC NULLS FIRST"#)
        #expect(try Self.orderBy(left + "ORDER BY pc.personCarID DESC, c.make") == #""t2"."personCarID" DESC NULLS LAST, ("t3"."make" COLLATE "C") ASC NULLS FIRST"#)
        #expect(try Self.orderBy(left + "ORDER BY p.personID") == #""t1"."personID" ASC"#, "the FROM table is always there")
        let selected = "SELECT c.carID, p.personID FROM Person p LEFT JOIN PersonCar pc ON pc.personID = p.personID LEFT JOIN Car c ON c.carID = pc.carID "
        #expect(try Self.orderBy(selected + "ORDER BY 1, 2") == "1 ASC NULLS FIRST, 2 ASC")
        // An inner join keeps only rows with a match, even after a LEFT JOIN: its columns are never missing.
        let inner = "SELECT p.firstName FROM Person p LEFT JOIN PersonCar pc ON pc.personID = p.personID JOIN Car c ON c.carID = pc.carID "
        #expect(try Self.orderBy(inner + "ORDER BY c.carID DESC, c.make") == #""t3"."carID" DESC, ("t3"."make" COLLATE "C") ASC"#)
    }
}
