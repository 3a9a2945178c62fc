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

/// Writes and keys on the fixture's dates: each column keeps its form, and what it cannot hold is refused.
extension DateStorageFormServingTests {
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
                let day = try await PythonSQLite.query(file, #"SELECT "Day" FROM "Days" WHERE "Note" = '2018'"#).first?.first?.stringValue
                #expect(day == "2018-01-01")
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
                func expectStored(_ id: Int, _ at: ODataDateTime, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                    guard let file else { return }
                    // Mixed columns get Strata's own text; every other column its own form.
                    let spelled = table.form == .mixed ? "'\(DateFormFixtures.text(at, fraction: 3, always: true))'" : table.spell(id, at)
                    let check = try await PythonSQLite.query(file, "SELECT OrderDate = \(spelled), typeof(OrderDate) = typeof(\(spelled)), OrderDate FROM \"\(table.name)\" WHERE id = \(id)")
                    #expect(check.first?.prefix(2).map(\.intValue) == [1, 1], "\(table.name)(\(id)) holds \(check), not \(spelled)", sourceLocation: sourceLocation)
                }
                let post = try await client.send(.post, "/\(Self.service)/\(table.name)", headers: [.contentType: "application/json"],
                                                 body: #"{"id": 100, "OrderDate": \#(json(first))}"#)
                #expect(post.status == .created, "\(table.name): \(post.text)")
                #expect(DateFormFixtures.instant(post.json["d"]["OrderDate"]) == first, "\(table.name) POST answer")
                try await expectStored(100, first)

                let put = try await client.send(.put, "/\(Self.service)/\(table.name)(100)", headers: [.contentType: "application/json"],
                                                body: #"{"OrderDate": \#(json(second))}"#)
                #expect(put.status == .noContent, "\(table.name): \(put.text)")
                #expect(DateFormFixtures.instant(try await client.get("/\(Self.service)/\(table.name)(100)").json["d"]["OrderDate"]) == second)
                try await expectStored(100, second)
                let merged = try await client.merge("/\(Self.service)/\(table.name)(100)", #"{"OrderDate": \#(json(first))}"#)
                #expect(merged.status == .noContent, "\(table.name): \(merged.text)")
                try await expectStored(100, first)
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
                try await expectStored(101, first)
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
}
