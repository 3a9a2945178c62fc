import Foundation
import NIOCore
import HTTPTypes
import HummingbirdTesting
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `POST /{service}/$sql`: checked client SQL, end to end on both databases.
@Suite("Data tables: SQL")
struct DataTableSQLTests {
    @Test("A single-table query answers that table's fields, editable when its key is selected", arguments: Backend.allCases)
    func singleTable(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.sql("SELECT personID, firstName, lastName FROM Person WHERE lastName = :name ORDER BY firstName DESC",
                                                parameters: ["name": .string("Johnson")])
            #expect(response.status == .ok, "\(response.text)")
            let table = try #require(try CompactTable.decode(Array(response.body.readableBytesView)).first)
            #expect(table.name == "Person")
            #expect(table.fields.map(\.name) == ["personID", "firstName", "lastName"])
            #expect(table.field("personID")?.key == true)
            #expect(table.field("firstName") == DataTableField(name: "firstName", type: .string, size: 50, required: true))
            let names = table.column("firstName").compactMap(\.stringValue)
            #expect(names.count >= 2)
            #expect(names == names.sorted(by: >))
            #expect(Set(table.column("lastName")) == [.string("Johnson")])
            let odata = Int(try await client.get("/cardealer/Person/$count?$filter=lastName%20eq%20'Johnson'").text)
            #expect(names.count == odata)
        }
    }

    @Test("Joins, aggregates, expressions and LIMIT/OFFSET answer read-only result fields", arguments: Backend.allCases)
    func queries(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let joined = try await client.sql("""
                SELECT p.lastName AS last, COUNT(*) AS cars, MAX(c.make) AS make
                FROM Person p JOIN PersonCar pc ON pc.personID = p.personID JOIN Car c ON c.carID = pc.carID
                GROUP BY p.lastName HAVING COUNT(*) >= :least ORDER BY cars DESC, last LIMIT 5 OFFSET 1
                """, parameters: ["least": .int64(1)])
            #expect(joined.status == .ok, "\(joined.text)")
            let table = try #require(try CompactTable.decode(Array(joined.body.readableBytesView)).first)
            #expect(table.name == "Query")
            #expect(table.fields.map(\.name) == ["last", "cars", "make"])
            #expect(table.fields.allSatisfy { $0.readOnly })
            #expect(table.field("cars")?.type == .int64)
            #expect(table.rows.count == 5)
            let counts = table.column("cars").compactMap(\.integerValue)
            #expect(counts == counts.sorted(by: >))

            let computed = try await client.sql("SELECT personID, UPPER(firstName) AS shout, personID * 2 AS twice FROM Person WHERE personID IN (1, 2) ORDER BY personID")
            let rows = try #require(try CompactTable.decode(Array(computed.body.readableBytesView)).first)
            #expect(rows.column("shout") == [.string("BOB"), .string("JONATHAN")])
            #expect(rows.column("twice").compactMap(\.integerValue) == [2, 4])
            #expect(rows.field("personID")?.readOnly == true, "a server-generated key is read-only")
            #expect(rows.field("shout")?.readOnly == true)
        }
    }

    @Test("A parameter holding SQL is a value: it matches nothing and runs nothing", arguments: Backend.allCases)
    func parameterInjection(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let before = try await client.count("/cardealer/Person")
            for attempt in ["x'; DROP TABLE Person; --", "' OR '1'='1", "1 OR 1=1", "\"; DELETE FROM Person; --"] {
                let response = try await client.sql("SELECT personID FROM Person WHERE lastName = :v OR ssn = :v", parameters: ["v": .string(attempt)])
                #expect(response.status == .ok, "\(response.text)")
                #expect(try CompactTable.decode(Array(response.body.readableBytesView)).first?.rows.isEmpty == true)
            }
            #expect(try await client.count("/cardealer/Person") == before)
        }
    }

    static let injectionCorpus: [String] = [
        "SELECT * FROM Person; DROP TABLE Person",
        "SELECT * FROM Person;DROP TABLE Person;--",
        "SELECT * FROM Person WHERE personID = 1; DELETE FROM Person",
        "SELECT * FROM Person WHERE personID = 1 DELETE FROM Person",
        "SELECT * FROM Person WHERE firstName = '' OR 1=1 --'",
        "SELECT * FROM Person WHERE firstName = 'x' /* hidden */",
        "SELECT * FROM Person WHERE personID = 1 /* */; DROP TABLE Person",
        "SELECT * FROM Person UNION SELECT name, sql, type, tbl_name, rootpage FROM sqlite_master",
        "SELECT personID FROM Person UNION ALL SELECT carID FROM Car",
        "SELECT * FROM sqlite_master",
        "SELECT * FROM \"sqlite_schema\"",
        "SELECT usename, passwd FROM pg_shadow",
        "SELECT * FROM pg_catalog.pg_user",
        "SELECT * FROM information_schema.tables",
        "SELECT * FROM strata_system.accounts",
        "SELECT * FROM main.Person",
        "SELECT pg_sleep(10)",
        "SELECT * FROM Person WHERE personID = 1 AND pg_sleep(5) IS NULL",
        "SELECT load_extension('/tmp/evil.so')",
        "SELECT LENGTH(randomblob(1000000000)) AS n FROM Person",
        "SELECT current_setting('data_directory')",
        "SELECT * FROM Person WHERE firstName = 'a' || CHR(39) || 'b'",
        "SELECT \"pg_sleep\"(1) FROM Person",
        "ATTACH DATABASE '/tmp/evil.db' AS evil",
        "PRAGMA writable_schema = 1",
        "COPY Person TO '/tmp/out'",
        "GRANT ALL ON Person TO public",
        "delete from Person",
        "UPDATE Person SET ssn = NULL",
        "INSERT INTO Person (personID) VALUES (9)",
        "DROP TABLE Person",
        "CREATE TABLE x (a INT)",
        "ALTER TABLE Person ADD COLUMN x INT",
        "TRUNCATE Person",
        "VACUUM INTO '/tmp/copy.db'",
        "EXPLAIN SELECT * FROM Person",
        "SET ROLE postgres",
        "BEGIN",
        "WITH x AS (SELECT * FROM Person) SELECT * FROM x",
        "SELECT * FROM (SELECT * FROM Person) p",
        "SELECT * FROM Person WHERE personID IN (SELECT personID FROM PersonCar)",
        "SELECT * FROM Person WHERE firstName = $1",
        "SELECT * FROM Person WHERE firstName = ?",
        "SELECT personID::text FROM Person",
        "SELECT $$x$$ FROM Person",
        "SELECT E'\\x27' FROM Person",
        "SELECT * FROM Person WHERE firstName = \u{2019}John\u{2019}",
        "SELECT * FROM Person WHERE firstName = 'x\u{0}' ",
        "SELECT * FROM Person\u{0}; DROP TABLE Person",
        "SELECT ROW_NUMBER() OVER (ORDER BY personID) FROM Person",
        "SELECT * FROM Person WHERE nope = 1",
        "SELECT * FROM Nope",
        "SELECT * FROM Person WHERE firstName = :missing",
        "SELECT * FROM Person p JOIN Car p ON 1 = 1",
        "SELECT",
        "",
        "SELECT * FROM Person WHERE firstName = 'unterminated",
        "SELECT * FROM Person FOR UPDATE",
        "SELECT * INTO copy FROM Person",
    ]

    @Test("Every injection attempt is refused with 400 and an explanation, and no statement runs", arguments: Backend.allCases)
    func injectionCorpus(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let people = try await client.count("/cardealer/Person")
            let statements = try await statementCount(client)
            for sql in Self.injectionCorpus {
                let response = try await client.sql(sql)
                #expect(response.status == .badRequest, "\(sql): \(response.status) \(response.text.prefix(300))")
                let error = response.odataError
                #expect(error?.message.isEmpty == false, "\(sql): \(response.text.prefix(300))")
                #expect(error?.code.hasPrefix("SQL") == true || error?.code == "InvalidDataTableDocument", "\(sql): \(error?.code ?? "")")
            }
            #expect(try await statementCount(client) == statements, "a refused query reached the database")
            #expect(try await client.count("/cardealer/Person") == people)
        }
    }

    @Test("Bodies that are not a query are refused before anything runs", arguments: [Backend.sqlite])
    func badBodies(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let statements = try await statementCount(client)
            let bodies: [(String, HTTPResponse.Status)] = [
                ("", .badRequest), ("not json", .badRequest), ("[]", .badRequest), (#"{"sql":1}"#, .badRequest),
                (#"{"sql":"SELECT 1","parameters":[1]}"#, .badRequest), (#"{"sql":"SELECT 1","extra":true}"#, .badRequest),
                (#"{"sql":"SELECT * FROM Person WHERE personID = :p","parameters":{"p":{"nested":1}}}"#, .badRequest),
            ]
            for (body, status) in bodies {
                let response = try await client.send(.post, "/cardealer/$sql", headers: [.contentType: "application/json"], body: body)
                #expect(response.status == status, "\(body): \(response.text)")
                #expect(response.odataError != nil)
            }
            let xml = try await client.send(.post, "/cardealer/$sql", headers: [.contentType: "application/xml"], body: "<sql/>")
            #expect(xml.status == .unsupportedMediaType)
            #expect(try await client.get("/cardealer/$sql").status == .methodNotAllowed)
            #expect(try await statementCount(client) == statements)
        }
    }

    @Test("A result over the row limit is refused with a hint; LIMIT brings it under", arguments: Backend.allCases)
    func rowLimit(_ backend: Backend) async throws {
        try await withServer(backend, configure: { $0.sqlRowLimit = 25 }) { client in
            let tooMany = try await client.sql("SELECT personID FROM Person")
            #expect(tooMany.status == .badRequest)
            #expect(tooMany.odataError?.message.contains("LIMIT") == true)
            let page = try await client.sql("SELECT personID FROM Person ORDER BY personID DESC LIMIT 25 OFFSET 3")
            let table = try #require(try CompactTable.decode(Array(page.body.readableBytesView)).first)
            #expect(table.rows.count == 25)
            let keys = table.column("personID").compactMap(\.integerValue)
            #expect(keys == keys.sorted(by: >))
        }
    }

    @Test("Read rights: a table the caller may not read is 403; row filters narrow every table the query reads", arguments: Backend.allCases)
    func accessRules(_ backend: Backend) async throws {
        try await withPolicyServer(backend, policy: DataTableFetchTests.ReadRulesPolicy()) { client in
            let people = try await client.sql("SELECT personID FROM Person ORDER BY personID")
            #expect(try CompactTable.decode(Array(people.body.readableBytesView)).first?.column("personID") == [.int32(1), .int32(2), .int32(3)])
            let joined = try await client.sql("SELECT pc.personCarID FROM PersonCar pc LEFT JOIN Person p ON p.personID = pc.personID WHERE p.personID IS NOT NULL")
            let visible = try await client.sql("SELECT personCarID FROM PersonCar WHERE personID < 4")
            #expect(joined.status == .ok)
            #expect(try CompactTable.decode(Array(joined.body.readableBytesView)).first?.rows.count
                    == (try CompactTable.decode(Array(visible.body.readableBytesView)).first?.rows.count))
            let counted = try await client.sql("SELECT COUNT(*) AS n FROM Person")
            #expect(try CompactTable.decode(Array(counted.body.readableBytesView)).first?.rows == [[.int64(3)]])
            let car = try await client.sql("SELECT make FROM Car")
            #expect(car.status == .forbidden)
            let joinedCar = try await client.sql("SELECT p.personID FROM Person p JOIN PersonCar pc ON pc.personID = p.personID JOIN Car c ON c.carID = pc.carID")
            #expect(joinedCar.status == .forbidden)
        }
    }
}
