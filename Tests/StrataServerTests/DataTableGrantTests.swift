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
import Testing

/// The data table endpoints under the real access rules of the auth code: an account whose role
/// holds grants with a `$claims` row filter, signed in with its password, on both databases.
@Suite("Data tables: grants and row filters")
struct DataTableGrantTests {
    /// A brand representative: reads and changes the Equipment of their own brand (the user name is
    /// the brand), may insert rows of that brand, reads Players, and nothing else in hockey.
    static func setup(_ admin: Administration) async throws {
        try await admin.addUser("Bauer", password: "pw-Bauer", roles: [RoleAssignment(role: "brandrep")])
        try await admin.grant(role: "brandrep", service: "hockey", table: "Equipment", actions: [.read, .update, .insert],
                              rowFilter: "brand eq $claims.sub")
        try await admin.grant(role: "brandrep", service: "hockey", table: "Players", actions: [.read], rowFilter: nil)
    }

    @Test("$tables, $sql and $changes see and change only the rows the grant's row filter allows", arguments: Backend.allCases)
    func rowFilteredGrant(_ backend: Backend) async throws {
        try await withAuthServer(backend, setup: Self.setup) { client in
            let rep = basic("Bauer")
            let root = basic(TestAccounts.admin)
            let bauerCount = Int(try await client.get("/hockey/Equipment/$count?$filter=brand%20eq%20'Bauer'", headers: root).text) ?? -1
            let allCount = Int(try await client.get("/hockey/Equipment/$count", headers: root).text) ?? -1
            #expect(bauerCount > 0 && bauerCount < allCount)

            // $tables: the filtered rows only; a table without a grant is unknown, alone or among
            // others, and no answer names it.
            let fetched = try await client.get("/hockey/$tables/Equipment", headers: rep)
            #expect(fetched.status == .ok)
            let equipment = try #require(try CompactTable.decode(Array(fetched.body.readableBytesView)).first)
            #expect(equipment.rows.count == bauerCount)
            #expect(Set(equipment.column("brand")) == [.string("Bauer")])
            let alone = try await client.get("/hockey/$tables/Teams", headers: rep)
            #expect(alone.status == .notFound)
            let among = try await client.get("/hockey/$tables?names=Players,Teams", headers: rep)
            #expect(among.status == .notFound)
            #expect(among.odataError?.message.contains("Equipment, Players") == true, "\(among.text)")
            #expect(!among.text.replacingOccurrences(of: "named 'Teams'", with: "").contains("Teams"), "\(among.text)")
            #expect(try await client.get("/hockey/$tables/Equipment", headers: basic("Bauer", "wrong")).status == .unauthorized)

            // $sql: the row filter narrows the table wherever the query reads it, joins and aggregates included.
            let grouped = try await client.send(.post, "/hockey/$sql", headers: rep.merging([.contentType: "application/json"]),
                                                body: #"{"sql":"SELECT e.brand, COUNT(*) AS n FROM Equipment e LEFT JOIN Players p ON p.playerID = e.playerID GROUP BY e.brand"}"#)
            #expect(grouped.status == .ok, "\(grouped.text)")
            let groups = try #require(try CompactTable.decode(Array(grouped.body.readableBytesView)).first)
            #expect(groups.rows == [[.string("Bauer"), .int64(Int64(bauerCount))]])
            let teams = try await client.send(.post, "/hockey/$sql", headers: rep.merging([.contentType: "application/json"]),
                                              body: #"{"sql":"SELECT p.playerID FROM Players p JOIN Teams t ON t.teamID = p.teamID"}"#)
            #expect(teams.status == .badRequest)
            #expect(teams.odataError?.message.contains("unknown table Teams") == true, "\(teams.text)")

            // $changes: a Bauer row changes; a CCM row (Equipment 3) and a CCM insert are refused;
            // delete is not granted. Independent mode, so each is judged on its own.
            let delta = #"""
                {"mode":"independent","changes":[
                 {"id":"mine","table":"Equipment","kind":"update","key":{"equipmentID":1},"original":{"size":"L"},"values":{"size":"XL"}},
                 {"id":"theirs","table":"Equipment","kind":"update","key":{"equipmentID":3},"values":{"size":"XS"}},
                 {"id":"new","table":"Equipment","kind":"insert","key":{"equipmentID":-1},"values":{"category":"Stick","brand":"Bauer"}},
                 {"id":"foreign","table":"Equipment","kind":"insert","key":{"equipmentID":-2},"values":{"category":"Stick","brand":"CCM"}},
                 {"id":"gone","table":"Equipment","kind":"delete","key":{"equipmentID":2}}]}
                """#
            // Callers who may write nothing are refused before anything about the delta is read.
            let anonymous = try await client.send(.post, "/hockey/$changes", headers: [.contentType: "application/json"],
                                                  body: #"{"changes":[{"id":"1","table":"Secret","kind":"delete","key":{"id":1}}]}"#)
            #expect(anonymous.status == .unauthorized && anonymous.text.contains("Secret") == false)
            let reader = try await client.send(.post, "/hockey/$changes", headers: basic(TestAccounts.reader).merging([.contentType: "application/json"]),
                                               body: #"{"changes":[{"id":"1","table":"Secret","kind":"delete","key":{"id":1}}]}"#)
            #expect(reader.status == .forbidden && reader.text.contains("Secret") == false, "\(reader.text)")
            let applied = try await client.send(.post, "/hockey/$changes", headers: rep.merging([.contentType: "application/json"]), body: delta)
            #expect(applied.status == .ok, "\(applied.text)")
            let statuses = (applied.json["results"]?.arrayValue ?? []).map { ($0["id"]?.stringValue ?? "", $0["status"]?.stringValue ?? "") }
            #expect(statuses.map(\.1) == ["applied", "failed", "applied", "failed", "failed"], "\(applied.text)")
            #expect(applied.json["keys"]["Equipment"]?.arrayValue?.count == 1)

            let after = try await client.get("/hockey/Equipment(3)", headers: root)
            #expect(after.json["d"]["size"]?.stringValue == "L", "the CCM row is unchanged")
            #expect(try await client.get("/hockey/Equipment(2)", headers: root).status == .ok, "nothing was deleted")
            #expect(Int(try await client.get("/hockey/Equipment/$count", headers: root).text) == allCount + 1, "only the Bauer insert landed")
            #expect(Int(try await client.get("/hockey/Equipment/$count?$filter=brand%20eq%20'Bauer'", headers: root).text) == bauerCount + 1)
            #expect(try await client.get("/hockey/Equipment(1)", headers: root).json["d"]["size"]?.stringValue == "XL")
        }
    }
}
