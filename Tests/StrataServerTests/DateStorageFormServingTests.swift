import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
@testable import StrataCore
@testable import StrataServer
import StrataSQL
import Testing

/// Dates that Strata did not write: a SQLite file whose tables store dates each of the ways real
/// files do (``DateFormFixtures``), made by Python, served by Strata. Every answer is compared
/// with what OData says (computed here from the instants), with SQLite's own answer to the same
/// question through its date functions, and with PostgreSQL's answer for the same rows in
/// timestamp columns.
@Suite("Dates in every storage form")
struct DateStorageFormServingTests {
    static let service = "dates"
    typealias Table = DateFormFixtures.Table

    /// A server over the fixture: on SQLite the Python-made file in its data directory, on
    /// PostgreSQL the same rows. Small pages, so that collections continue by date sort keys.
    static func withFixture(_ backend: Backend, _ test: @Sendable @escaping (any TestClientProtocol, String?) async throws -> Void) async throws {
        let file = NIOLockedValueBox<String?>(nil)
        let postgres = TestService(name: service) { _ in [DateFormFixtures.postgresScript] }
        try await withServer(backend, demo: false, pageSize: 4, services: backend == .postgres ? [postgres] : [], configure: { configuration in
            guard backend == .sqlite else { return }
            let path = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("\(service).sqlite").path
            do {
                try DateFormFixtures.makeSQLite(at: path)
                file.withLockedValue { $0 = path }
            } catch {
                Issue.record("the SQLite fixture could not be made: \(error)")
            }
        }) { client in
            try await test(client, file.withLockedValue { $0 })
        }
    }

    static func at(_ text: String) -> ODataDateTime { DateFormFixtures.at(text) }

    /// A `$filter`, the same question in SQLite's terms (`N` is the column as a Julian day), and
    /// which instants OData says it matches.
    struct FilterCase: Sendable {
        var filter: @Sendable (_ literal: (String) -> String) -> String
        var sqlite: String?
        var matches: @Sendable (ODataDateTime?) -> Bool
    }

    static let filters: [FilterCase] = {
        let july4 = at("2016-07-04T00:00:00"), ten = at("2016-07-04T10:00:00"), fine = at("2016-07-04T00:00:00.0005")
        let jan1 = at("2017-01-01T00:00:00"), feb1 = at("2017-02-01T00:00:00")
        @Sendable func part(_ value: ODataDateTime?) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, microsecond: Int)? {
            value?.components
        }
        return [
            FilterCase(filter: { "OrderDate eq \($0("2016-07-04T00:00:00"))" }, sqlite: "@N = julianday('2016-07-04')", matches: { $0 == july4 }),
            FilterCase(filter: { "OrderDate ne \($0("2016-07-04T00:00:00"))" }, sqlite: "@N IS NOT julianday('2016-07-04')", matches: { $0 != july4 }),
            FilterCase(filter: { "OrderDate ge \($0("2017-01-01T00:00:00")) and OrderDate lt \($0("2017-02-01T00:00:00"))" },
                       sqlite: "@N >= julianday('2017-01-01') AND @N < julianday('2017-02-01')",
                       matches: { $0.map { $0 >= jan1 && $0 < feb1 } ?? false }),
            FilterCase(filter: { "OrderDate gt \($0("2017-01-01T00:00:00"))" }, sqlite: "@N > julianday('2017-01-01')", matches: { $0.map { $0 > jan1 } ?? false }),
            FilterCase(filter: { "OrderDate le \($0("2017-01-01T00:00:00"))" }, sqlite: "@N <= julianday('2017-01-01')", matches: { $0.map { $0 <= jan1 } ?? false }),
            FilterCase(filter: { "\($0("2017-01-01T00:00:00")) le OrderDate" }, sqlite: "julianday('2017-01-01') <= @N", matches: { $0.map { $0 >= jan1 } ?? false }),
            // A time that a column of dates cannot hold.
            FilterCase(filter: { "OrderDate eq \($0("2016-07-04T10:00:00"))" }, sqlite: "@N = julianday('2016-07-04 10:00:00')", matches: { $0 == ten }),
            FilterCase(filter: { "OrderDate lt \($0("2016-07-04T10:00:00"))" }, sqlite: "@N < julianday('2016-07-04 10:00:00')", matches: { $0.map { $0 < ten } ?? false }),
            FilterCase(filter: { "OrderDate ge \($0("2016-07-04T10:00:00"))" }, sqlite: "@N >= julianday('2016-07-04 10:00:00')", matches: { $0.map { $0 >= ten } ?? false }),
            // Finer than any form holds (SQLite's own functions round it to the millisecond, so only OData answers).
            FilterCase(filter: { "OrderDate le \($0("2016-07-04T00:00:00.0005"))" }, sqlite: nil, matches: { $0.map { $0 <= fine } ?? false }),
            FilterCase(filter: { "OrderDate gt \($0("2016-07-04T00:00:00.0005"))" }, sqlite: nil, matches: { $0.map { $0 > fine } ?? false }),
            FilterCase(filter: { "OrderDate ne \($0("2016-07-04T00:00:00.0005"))" }, sqlite: nil, matches: { $0 != fine }),
            FilterCase(filter: { _ in "year(OrderDate) eq 2017" }, sqlite: "CAST(strftime('%Y', @N) AS INTEGER) = 2017", matches: { part($0)?.year == 2017 }),
            FilterCase(filter: { _ in "month(OrderDate) eq 1 and day(OrderDate) eq 1" },
                       sqlite: "CAST(strftime('%m', @N) AS INTEGER) = 1 AND CAST(strftime('%d', @N) AS INTEGER) = 1",
                       matches: { part($0).map { $0.month == 1 && $0.day == 1 } ?? false }),
            FilterCase(filter: { _ in "hour(OrderDate) eq 10 and minute(OrderDate) eq 30" },
                       sqlite: "CAST(strftime('%H', @N) AS INTEGER) = 10 AND CAST(strftime('%M', @N) AS INTEGER) = 30",
                       matches: { part($0).map { $0.hour == 10 && $0.minute == 30 } ?? false }),
            FilterCase(filter: { _ in "second(OrderDate) eq 59" }, sqlite: "CAST(strftime('%S', @N) AS INTEGER) = 59", matches: { part($0)?.second == 59 }),
            FilterCase(filter: { _ in "OrderDate eq null" }, sqlite: "@N IS NULL", matches: { $0 == nil }),
            FilterCase(filter: { "not (OrderDate lt \($0("2017-01-01T00:00:00")))" }, sqlite: "NOT COALESCE(@N < julianday('2017-01-01'), 0)",
                       matches: { $0.map { !($0 < jan1) } ?? true }),
            FilterCase(filter: { "OrderDate ge \($0("1969-12-31T00:00:00")) and OrderDate lt \($0("1970-01-01T00:00:00"))" },
                       sqlite: "@N >= julianday('1969-12-31') AND @N < julianday('1970-01-01')",
                       matches: { $0.map { $0 >= at("1969-12-31T00:00:00") && $0 < at("1970-01-01T00:00:00") } ?? false }),
        ]
    }()

    static func ids(_ table: Table, where matches: (ODataDateTime?) -> Bool) -> [Int] {
        table.rows.filter { matches($0.at) }.map { $0.id }
    }

    /// Every page of a collection, following `__next`.
    static func collect(_ client: any TestClientProtocol, _ url: String) async throws -> [JSONValue] {
        var rows: [JSONValue] = []
        var next: String? = url
        var pages = 0
        while let page = next, pages < 50 {
            let response = try await client.get(page)
            #expect(response.status == .ok, "\(page): \(response.text.prefix(300))")
            rows += response.json["d"]["results"]?.arrayValue ?? []
            next = response.json["d"]["__next"]?.stringValue.map { String($0.dropFirst("http://localhost".count)) }
            pages += 1
        }
        return rows
    }

    /// SQLite's own answer: ids of the rows where `condition` holds, `N` the column as a Julian day.
    static func sqliteIDs(_ file: String, _ table: Table, where condition: String, orderBy: String = "id") throws -> [Int] {
        let sql = "SELECT id FROM \"\(table.name)\" WHERE \(condition) ORDER BY \(orderBy)".replacingOccurrences(of: "@N", with: table.julian)
        return try PythonSQLite.query(file, sql).compactMap { $0.first?.intValue }
    }

    @Test("$filter, $orderby, date parts, values and $tables answer right for every storage form", arguments: Backend.allCases)
    func readsEveryForm(_ backend: Backend) async throws {
        try await Self.withFixture(backend) { client, file in
            for table in DateFormFixtures.tables {
                let literal = { (text: String) in DateFormFixtures.literal(text, for: table) }
                for filterCase in Self.filters {
                    let filter = filterCase.filter(literal)
                    let expected = Self.ids(table, where: filterCase.matches)
                    let rows = try await Self.collect(client, "/\(Self.service)/\(table.name)?$filter=\(PercentEncoding.encodeQueryValue(filter))&$orderby=id")
                    #expect(rows.compactMap { $0["id"]?.intValue } == expected, "\(table.name): \(filter)")
                    if let file, let sqlite = filterCase.sqlite {
                        #expect(try Self.sqliteIDs(file, table, where: sqlite) == expected, "SQLite itself, \(table.name): \(sqlite)")
                    }
                }
                // The issue's count: every row but the one on 2016-07-04, nulls included.
                let notJuly4 = "OrderDate ne \(literal("2016-07-04T00:00:00"))"
                let count = try await client.get("/\(Self.service)/\(table.name)/$count?$filter=\(PercentEncoding.encodeQueryValue(notJuly4))")
                #expect(count.text == "\(table.rows.count - 1)", "\(table.name) $count")
                // Ordered by the date across pages (continuation by date sort keys), nulls first ascending.
                let ascending = table.rows.sorted { ($0.at?.microsecondsSince1970 ?? .min, $0.id) < ($1.at?.microsecondsSince1970 ?? .min, $1.id) }.map { $0.id }
                let descending = table.rows.sorted { ($1.at?.microsecondsSince1970 ?? .min, $0.id) < ($0.at?.microsecondsSince1970 ?? .min, $1.id) }.map { $0.id }
                for (order, expected) in [("OrderDate,id", ascending), ("OrderDate%20desc,id", descending)] {
                    let rows = try await Self.collect(client, "/\(Self.service)/\(table.name)?$orderby=\(order)")
                    #expect(rows.compactMap { $0["id"]?.intValue } == expected, "\(table.name) by \(order)")
                }
                if let file {
                    #expect(try Self.sqliteIDs(file, table, where: "1 = 1", orderBy: "@N, id") == ascending, "SQLite itself, \(table.name)")
                }
                // Every value reads back as the instant it stores.
                let all = try await Self.collect(client, "/\(Self.service)/\(table.name)?$orderby=id")
                #expect(all.map { DateFormFixtures.instant($0["OrderDate"]) } == table.rows.map { $0.at }, "\(table.name) values")
                // One row by key, through the prepared whole-entity read.
                let single = try await client.get("/\(Self.service)/\(table.name)(9)")
                if let row = table.rows.first(where: { $0.id == 9 }) {
                    #expect(DateFormFixtures.instant(single.json["d"]["OrderDate"]) == row.at, "\(table.name)(9)")
                }
                // $tables reads through the same planner.
                let range = "OrderDate ge \(literal("2017-01-01T00:00:00")) and OrderDate lt \(literal("2017-02-01T00:00:00"))"
                let compact = try await client.tables("/\(Self.service)/$tables/\(table.name)?$filter=\(PercentEncoding.encodeQueryValue(range))&$orderby=id")
                #expect(compact.first?.column("id").compactMap(\.integerValue) == Self.ids(table, where: Self.filters[2].matches).map(Int64.init),
                        "$tables \(table.name)")
            }
        }
    }

    @Test("$sql compares, sorts, groups and computes with dates in every storage form", arguments: Backend.allCases)
    func sqlOnEveryForm(_ backend: Backend) async throws {
        try await Self.withFixture(backend) { client, _ in
            let july4 = Self.at("2016-07-04T00:00:00"), jan1 = Self.at("2017-01-01T00:00:00")
            let feb1 = Self.at("2017-02-01T00:00:00"), lastOfJan = Self.at("2017-01-31T23:59:59")
            let cases: [(String, @Sendable (ODataDateTime?) -> Bool)] = [
                ("WHERE OrderDate >= '2017-01-01' AND OrderDate < '2017-02-01'", { $0.map { $0 >= jan1 && $0 < feb1 } ?? false }),
                ("WHERE OrderDate = '2016-07-04'", { $0 == july4 }),
                ("WHERE OrderDate <> '2016-07-04'", { $0.map { $0 != july4 } ?? false }),
                ("WHERE OrderDate = :day", { $0 == july4 }),
                ("WHERE OrderDate BETWEEN '2017-01-01' AND '2017-01-31 23:59:59'", { $0.map { $0 >= jan1 && $0 <= lastOfJan } ?? false }),
                ("WHERE OrderDate NOT BETWEEN '2017-01-01' AND '2017-01-31 23:59:59'", { $0.map { $0 < jan1 || $0 > lastOfJan } ?? false }),
                ("WHERE OrderDate IN ('2016-07-04', '2017-01-01')", { $0 == july4 || $0 == jan1 }),
                ("WHERE '2017-01-01' < OrderDate", { $0.map { $0 > jan1 } ?? false }),
                ("WHERE YEAR(OrderDate) = 2017 AND MONTH(OrderDate) = 1", { $0.map { $0.components.year == 2017 && $0.components.month == 1 } ?? false }),
                ("WHERE OrderDate IS NULL", { $0 == nil }),
            ]
            for table in DateFormFixtures.tables {
                for (clause, matches) in cases {
                    let sql = "SELECT id FROM \(table.name) \(clause) ORDER BY id"
                    let response = try await client.sql(sql, parameters: ["day": table.isOffset ? .dateTimeOffset(ODataDateTimeOffset(utc: july4)) : .dateTime(july4)],
                                                        service: Self.service)
                    #expect(response.status == .ok, "\(sql): \(response.text.prefix(300))")
                    let ids = try CompactTable.decode(Array(response.body.readableBytesView)).first?.column("id").compactMap(\.integerValue) ?? []
                    #expect(ids == Self.ids(table, where: matches).map(Int64.init), "\(table.name): \(sql)")
                }
                let ascending = table.rows.sorted { ($0.at?.microsecondsSince1970 ?? .min, $0.id) < ($1.at?.microsecondsSince1970 ?? .min, $1.id) }
                let ordered = try await client.sql("SELECT id, OrderDate FROM \(table.name) ORDER BY OrderDate, id", service: Self.service)
                let rows = try #require(try CompactTable.decode(Array(ordered.body.readableBytesView)).first)
                #expect(rows.column("id").compactMap(\.integerValue) == ascending.map { Int64($0.id) }, "\(table.name) ORDER BY OrderDate")
                #expect(rows.column("OrderDate").map(\.instant) == ascending.map { $0.at }, "\(table.name) values")
                let positional = try await client.sql("SELECT OrderDate, id FROM \(table.name) ORDER BY 1 DESC, 2", service: Self.service)
                let descending = table.rows.sorted { ($1.at?.microsecondsSince1970 ?? .min, $0.id) < ($0.at?.microsecondsSince1970 ?? .min, $1.id) }
                #expect(try CompactTable.decode(Array(positional.body.readableBytesView)).first?.column("id").compactMap(\.integerValue)
                        == descending.map { Int64($0.id) }, "\(table.name) ORDER BY 1 DESC")
                let extremes = try await client.sql("SELECT MIN(OrderDate) AS low, MAX(OrderDate) AS high, COUNT(DISTINCT OrderDate) AS n FROM \(table.name)",
                                                    service: Self.service)
                let summary = try #require(try CompactTable.decode(Array(extremes.body.readableBytesView)).first, "\(extremes.text)")
                let instants = table.rows.compactMap { $0.at }
                #expect(summary.column("low").first?.instant == instants.min(), "\(table.name) MIN")
                #expect(summary.column("high").first?.instant == instants.max(), "\(table.name) MAX")
                #expect(summary.column("n").first?.integerValue == Int64(Set(instants).count), "\(table.name) COUNT(DISTINCT)")
                let grouped = try await client.sql("SELECT YEAR(OrderDate) AS y, COUNT(*) AS n FROM \(table.name) WHERE OrderDate IS NOT NULL GROUP BY YEAR(OrderDate) ORDER BY 1",
                                                   service: Self.service)
                let years = Dictionary(grouping: instants, by: { Int64($0.components.year) }).mapValues { Int64($0.count) }
                let groups = try #require(try CompactTable.decode(Array(grouped.body.readableBytesView)).first, "\(grouped.text)")
                #expect(groups.column("y").compactMap(\.integerValue) == years.keys.sorted(), "\(table.name) GROUP BY YEAR")
                #expect(groups.column("n").compactMap(\.integerValue) == years.keys.sorted().map { years[$0]! }, "\(table.name) GROUP BY YEAR")
            }
        }
    }

    @Test("A date key finds the row stored as '2016-07-04'; reads, updates and deletes by it", arguments: Backend.allCases)
    func dateKeys(_ backend: Backend) async throws {
        try await Self.withFixture(backend) { client, file in
            let found = try await client.get("/\(Self.service)/Days(datetime'2016-07-04T00:00:00')")
            #expect(found.status == .ok, "\(found.text)")
            #expect(found.json["d"]["Note"]?.stringValue == "independence")
            #expect(DateFormFixtures.instant(found.json["d"]["Day"]) == Self.at("2016-07-04"))
            #expect(try await client.get("/\(Self.service)/Days(datetime'2016-07-04T10:00:00')").status == .notFound)
            let filtered = try await client.get("/\(Self.service)/Days?$filter=Day%20eq%20datetime'2017-01-01T00:00:00'")
            #expect(filtered.json["d"]["results"][0]["Note"]?.stringValue == "new year")

            let put = try await client.send(.put, "/\(Self.service)/Days(datetime'2017-01-01T00:00:00')", headers: [.contentType: "application/json"],
                                            body: #"{"Note": "fresh"}"#)
            #expect(put.status == .noContent, "\(put.text)")
            #expect(try await client.get("/\(Self.service)/Days(datetime'2017-01-01T00:00:00')").json["d"]["Note"]?.stringValue == "fresh")
            let delete = try await client.send(.delete, "/\(Self.service)/Days(datetime'2017-01-01T00:00:00')")
            #expect(delete.status == .noContent, "\(delete.text)")
            #expect(try await client.get("/\(Self.service)/Days(datetime'2017-01-01T00:00:00')").status == .notFound)

            let posted = try await client.send(.post, "/\(Self.service)/Days", headers: [.contentType: "application/json"],
                                               body: #"{"Day": "/Date(1514764800000)/", "Note": "2018"}"#)
            #expect(posted.status == .created, "\(posted.text)")
            #expect(try await client.get("/\(Self.service)/Days(datetime'2018-01-01T00:00:00')").json["d"]["Note"]?.stringValue == "2018")
            if let file {
                #expect(try PythonSQLite.query(file, #"SELECT "Day" FROM "Days" WHERE "Note" = '2018'"#).first?.first?.stringValue == "2018-01-01")
            }
            // A time a date column cannot hold is refused, on both databases, rather than cut off.
            let timed = try await client.send(.post, "/\(Self.service)/Days", headers: [.contentType: "application/json"],
                                              body: #"{"Day": "/Date(1514800800000)/", "Note": "ten"}"#)
            #expect(timed.status == .badRequest, "\(timed.text)")
            #expect(timed.odataError?.message.contains("without a time of day") == true, "\(timed.text)")
        }
    }

    @Test("Writes keep each column's form: POST, PUT and $changes; a value the form cannot hold is a 400", arguments: Backend.allCases)
    func writesKeepTheForm(_ backend: Backend) async throws {
        try await Self.withFixture(backend) { client, file in
            for table in DateFormFixtures.tables {
                let dated = table.name == "DateOnly"
                let first = Self.at(dated ? "2024-05-06T00:00:00" : "2024-05-06T07:08:09")
                let second = Self.at(dated ? "2024-05-07T00:00:00" : "2024-05-07T08:09:10")
                func json(_ at: ODataDateTime) -> String {
                    table.isOffset ? "\"\(DateFormFixtures.text(at, separator: "T"))Z\"" : "\"/Date(\(at.millisecondsSince1970))/\""
                }
                func expectStored(_ id: Int, _ at: ODataDateTime, sourceLocation: SourceLocation = #_sourceLocation) throws {
                    guard let file else { return }
                    // Mixed columns get Strata's own text; every other column its own form.
                    let spelled = table.form == .mixed ? "'\(DateFormFixtures.text(at, fraction: 3, always: true))'" : table.spell(id, at)
                    let check = try PythonSQLite.query(file, "SELECT OrderDate = \(spelled), typeof(OrderDate) = typeof(\(spelled)), OrderDate FROM \"\(table.name)\" WHERE id = \(id)")
                    #expect(check.first?.prefix(2).map(\.intValue) == [1, 1], "\(table.name)(\(id)) holds \(check), not \(spelled)", sourceLocation: sourceLocation)
                }
                let post = try await client.send(.post, "/\(Self.service)/\(table.name)", headers: [.contentType: "application/json"],
                                                 body: #"{"id": 100, "OrderDate": \#(json(first))}"#)
                #expect(post.status == .created, "\(table.name): \(post.text)")
                #expect(DateFormFixtures.instant(post.json["d"]["OrderDate"]) == first, "\(table.name) POST answer")
                try expectStored(100, first)

                let put = try await client.send(.put, "/\(Self.service)/\(table.name)(100)", headers: [.contentType: "application/json"],
                                                body: #"{"OrderDate": \#(json(second))}"#)
                #expect(put.status == .noContent, "\(table.name): \(put.text)")
                #expect(DateFormFixtures.instant(try await client.get("/\(Self.service)/\(table.name)(100)").json["d"]["OrderDate"]) == second)
                try expectStored(100, second)
                let merged = try await client.merge("/\(Self.service)/\(table.name)(100)", #"{"OrderDate": \#(json(first))}"#)
                #expect(merged.status == .noContent, "\(table.name): \(merged.text)")
                try expectStored(100, first)
                let reput = try await client.send(.put, "/\(Self.service)/\(table.name)(100)", headers: [.contentType: "application/json"],
                                                  body: #"{"OrderDate": \#(json(second))}"#)
                #expect(reput.status == .noContent, "\(table.name): \(reput.text)")
                let filtered = try await client.get("/\(Self.service)/\(table.name)?$filter=\(PercentEncoding.encodeQueryValue("OrderDate eq \(DateFormFixtures.literal(DateFormFixtures.text(second, separator: "T"), for: table))"))")
                #expect(filtered.json["d"]["results"][0]["id"]?.intValue == 100, "\(table.name): the written value is found")

                let changes = try await client.apply(DataTableDelta(changes: [
                    DataTableChange(id: "new", table: table.name, kind: .insert, key: ["id": .int32(101)],
                                    values: ["OrderDate": table.isOffset ? .dateTimeOffset(ODataDateTimeOffset(utc: first)) : .dateTime(first)]),
                ]), service: Self.service)
                #expect(changes.result("new")?.status == .applied, "\(table.name): \(changes.result("new")?.message ?? "")")
                try expectStored(101, first)
            }
            // What a form cannot hold is refused, not cut to fit.
            let timed = try await client.send(.post, "/\(Self.service)/DateOnly", headers: [.contentType: "application/json"],
                                              body: #"{"id": 102, "OrderDate": "/Date(1714979289000)/"}"#)
            #expect(timed.status == .badRequest, "\(timed.text)")
            guard backend == .sqlite else { return }
            for name in ["Seconds", "Unix"] {
                let fraction = try await client.send(.post, "/\(Self.service)/\(name)", headers: [.contentType: "application/json"],
                                                     body: #"{"id": 102, "OrderDate": "/Date(1714979289500)/"}"#)
                #expect(fraction.status == .badRequest, "\(name): \(fraction.text)")
                #expect(fraction.odataError?.message.contains("OrderDate of \(name)") == true, "\(fraction.text)")
            }
        }
    }

    @Test("The catalog reader names each form, and an index serves comparisons and order on every consistent form")
    func indexServesConsistentForms() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-dates-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try DateFormFixtures.makeSQLite(at: directory.appendingPathComponent("\(Self.service).sqlite").path)
        let store = try await SQLiteServiceStore.open(directory: directory, singleFile: nil, counter: .none, logger: TestDatabases.logger)
        do {
            var storage = try #require(try await store.discover().first { $0.name == Self.service })
            let tables = try await storage.database.read { [storage] in try await storage.catalogReader.readTables($0) }
            storage.dateForms = DateForms(tables, service: Self.service, logger: TestDatabases.logger)
            for table in DateFormFixtures.tables {
                #expect(storage.dateForms[table: table.name, column: "OrderDate"] == table.form, "\(table.name)")
            }
            #expect(storage.dateForms[table: "Days", column: "Day"] == .text(DateTextLayout(precisions: [.day])))
            let model = ModelBuilder(serviceName: Self.service, namespace: Self.service, logger: TestDatabases.logger).build(tables)
            let service = ODataService(storage: storage, model: model, settings: ServiceSettings())

            for table in DateFormFixtures.tables {
                let literal = { (text: String) in DateFormFixtures.literal(text, for: table) }
                let plan = try await Self.plan(service, table.name,
                                               "$filter=OrderDate ge \(literal("2017-01-01T00:00:00")) and OrderDate lt \(literal("2017-02-01T00:00:00"))&$orderby=OrderDate")
                if table.form == .mixed {
                    #expect(!plan.contains("INDEX"), "\(table.name): \(plan)")
                } else {
                    #expect(plan.contains("INDEX \(table.name)_OrderDate (OrderDate>? AND OrderDate<?)"), "\(table.name): \(plan)")
                    #expect(!plan.contains("TEMP B-TREE"), "\(table.name): \(plan)")
                }
                let equal = try await Self.plan(service, table.name, "$filter=OrderDate eq \(literal("2016-07-04T00:00:00"))")
                if table.form != .mixed { #expect(equal.contains("INDEX \(table.name)_OrderDate (OrderDate"), "\(table.name): \(equal)") }
            }
            let key = try await Self.plan(service, "Days", "$filter=Day eq datetime'2016-07-04T00:00:00'")
            #expect(key.contains("INDEX sqlite_autoindex_Days_1 (Day=?)"), "\(key)")

            let checked = try ClientSQL.check("SELECT id FROM Seconds WHERE OrderDate >= '2017-01-01' AND OrderDate < '2017-02-01'",
                                              catalog: SQLCatalog(model: model))
            let statement = try SQLQueryOperation.statement(checked, service: service, sources: [:], rowLimit: 1000)
            let sqlPlan = try await storage.database.read { try await $0.query(statement.explained(for: .sqlite)) }
                .rows.compactMap { $0.last?.stringValue }.joined(separator: "\n")
            #expect(sqlPlan.contains("USING COVERING INDEX Seconds_OrderDate (OrderDate>? AND OrderDate<?)"), "\(sqlPlan)")
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    }

    /// SQLite's plan for the first chunk of `Set?query`, planned as the server plans it.
    static func plan(_ service: ODataService, _ setName: String, _ query: String) async throws -> String {
        let set = try #require(service.model.entitySet(named: setName))
        let type = service.model.entityType(of: set)
        let bound = try QueryBinder(model: service.model).bind(QueryOptions(parsing: query), to: type)
        let path = ResolvedPath(steps: [ResolvedPath.Step(set: set, type: type, via: nil, key: nil)], terminal: .entities)
        var access = ReadAccess()
        access.add(setName, .unrestricted)
        let plan = try ReadPlanner(service: service, access: access).plan(path, bound)
        let reader = CollectionReader(database: service.database, query: plan.query, sortKeys: plan.sortKeys, columnTypes: plan.columns.map(\.type))
        let statement = SQLRenderer.render(reader.chunkQuery(limit: 1000, offset: 0, after: nil), dialect: .sqlite)
        let rows = try await service.database.read { try await $0.query(statement.explained(for: .sqlite)) }
        return rows.rows.compactMap { $0.last?.stringValue }.joined(separator: "\n")
    }
}
