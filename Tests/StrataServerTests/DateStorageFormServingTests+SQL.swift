import Foundation
import HTTPTypes
import HummingbirdTesting
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

/// `$sql` on the fixture's dates: comparisons with constants in each column's form, order, grouping
/// and aggregates through SQLite's date functions.
extension DateStorageFormServingTests {
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
}
