import Foundation
import HummingbirdTesting
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import StrataClient
import StrataCore
import Testing

/// StrataClient against a real server over a socket: a briefcase kept current with `$tables`
/// deltas, and the typed change stream.
@Suite("Feed: StrataClient against the server")
struct FeedClientTests {
    @Test("trackedTables then changes(in:since:) keep a briefcase current; the change stream delivers a commit",
          arguments: Backend.allCases)
    func briefcaseAndStream(_ backend: Backend) async throws {
        try await withLiveServer(backend) { (connection: Connection) in
            let adapter = RemoteDataAdapter(connection: connection, service: "cardealer")
            let first = try await adapter.trackedTables(["Person", "Car"])
            var briefcase = Briefcase(tables: first.tables)
            briefcase.deltaToken = first.token
            let people = try #require(briefcase["Person"]).rows.count

            // A stream follows its own query: Person alone, from a token of Person alone.
            let personToken = try #require(try await adapter.trackedTables(["Person"]).token)
            let stream = adapter.changeStream(["Person"], since: personToken)
            let received = Task { () -> [String] in
                var names: [String] = []
                for try await event in stream {
                    guard case .changes(let batch) = event else { continue }
                    for table in batch.tables {
                        let position = try #require(table.fields.firstIndex { $0.name == "firstName" })
                        names += table.rows.compactMap { $0[position].stringValue }
                    }
                    if names.contains("Streamed") { break }
                }
                return names
            }

            var people2 = try await adapter.table("Person", where: "personID eq 1")
            try people2.update(people2.rows[0].id) { try $0.set("firstName", to: "Streamed") }
            _ = try await adapter.applyChanges(&people2)

            let delta = try await adapter.changes(in: ["Person", "Car"], since: try #require(briefcase.deltaToken))
            try briefcase.apply(delta)
            let person = try #require(briefcase["Person"])
            #expect(person.rows.count == people)
            #expect(person.row(where: "personID", is: .int32(1))?["firstName"] == .string("Streamed"))
            #expect(briefcase.deltaToken == delta.token)

            let names = try await withThrowingTaskGroup(of: [String]?.self) { group in
                group.addTask { try await received.value }
                group.addTask { try await Task.sleep(for: .seconds(20)); return nil }
                let first = try await group.next() ?? nil
                group.cancelAll()
                received.cancel()
                return first
            }
            #expect(names?.contains("Streamed") == true)
        }
    }
}
