import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
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
            // The tests write rows with the keys the fixture's checks name, as the program that owns
            // such a file would: the service's model file lets clients choose generated keys.
            try? "allowClientKeys: true\n".write(to: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("\(service).model.yaml"),
                                                  atomically: true, encoding: .utf8)
            guard backend == .sqlite else { return }
            let path = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("\(service).sqlite").path
            do {
                try PythonSQLite.executeBlocking(path, DateFormFixtures.sqliteScript)
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
    static func sqliteIDs(_ file: String, _ table: Table, where condition: String, orderBy: String = "id") async throws -> [Int] {
        let sql = "SELECT id FROM \"\(table.name)\" WHERE \(condition) ORDER BY \(orderBy)".replacingOccurrences(of: "@N", with: table.julian)
        return try await PythonSQLite.query(file, sql).compactMap { $0.first?.intValue }
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
                        let ids = try await Self.sqliteIDs(file, table, where: sqlite)
                        #expect(ids == expected, "SQLite itself, \(table.name): \(sqlite)")
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
                    let ids = try await Self.sqliteIDs(file, table, where: "1 = 1", orderBy: "@N, id")
                    #expect(ids == ascending, "SQLite itself, \(table.name)")
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
}
