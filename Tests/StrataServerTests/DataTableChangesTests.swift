import Foundation
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

/// `POST /{service}/$changes`: deltas with per-change results, end to end on both databases.
@Suite("Data tables: changes")
struct DataTableChangesTests {
    @Test("An update applies and answers the row as stored", arguments: Backend.allCases)
    func update(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let response = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "u1", table: "Person", kind: .update, key: ["personID": .int32(1)],
                                original: ["lastName": .string("Samson")], values: ["lastName": .string("Samsonite")]),
            ]))
            let result = try #require(response.result("u1"))
            #expect(result.status == .applied, "\(result.message ?? "")")
            #expect(result.row?["lastName"] == .string("Samsonite"))
            #expect(result.row?["firstName"] == .string("Bob"))
            #expect(result.row?["createDate"]?.isNull == false)
            #expect(result.serverRow == nil && result.message == nil)
            #expect(try await client.row("Person", key: "personID", 1)?["lastName"] == .string("Samsonite"))
        }
    }

    @Test("Master and detail inserted together with temporary keys: keys remapped, foreign keys rewritten, mapping reported",
          arguments: Backend.allCases)
    func masterDetail(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            // The detail comes first: the server applies the inserts it refers to before it.
            let response = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "link", table: "PersonCar", kind: .insert, key: ["personCarID": .int32(-3)],
                                values: ["personID": .int32(-1), "carID": .int32(-2)]),
                DataTableChange(id: "person", table: "Person", kind: .insert, key: ["personID": .int32(-1)],
                                values: ["firstName": .string("Ada"), "lastName": .string("Lovelace")]),
                DataTableChange(id: "car", table: "Car", kind: .insert, key: ["carID": .int32(-2)],
                                values: ["make": .string("Babbage"), "model": .string("Analytical")]),
            ]))
            #expect(response.results.map(\.id) == ["link", "person", "car"], "results follow the delta's order")
            #expect(response.results.allSatisfy { $0.status == .applied }, "\(response.results.map { $0.message ?? "" })")
            let person = try #require(response.result("person")?.row)
            let car = try #require(response.result("car")?.row)
            let link = try #require(response.result("link")?.row)
            let personID = try #require(person["personID"]?.integerValue)
            #expect(personID > 0)
            #expect(person["createDate"]?.isNull == false, "the database default is in the stored row")
            #expect(link["personID"]?.integerValue == personID)
            #expect(link["carID"] == car["carID"])
            #expect(response.keys["Person"] == [.init(temporary: ["personID": .int32(-1)], key: ["personID": .int32(Int32(personID))])])
            #expect(response.keys["Car"]?.first?.key == ["carID": car["carID"]!])
            #expect(response.keys["PersonCar"]?.first?.temporary == ["personCarID": .int32(-3)])
            let cars = try await client.get("/cardealer/Person(\(personID))/PersonCar?$expand=Car").json["d"]["results"]
            #expect(cars[0]["Car"]["make"]?.stringValue == "Babbage")
            // A later change of the same delta may address a new row by its temporary key.
            let edited = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "new", table: "Person", kind: .insert, key: ["personID": .int32(-7)],
                                values: ["firstName": .string("Grace"), "lastName": .string("H")]),
                DataTableChange(id: "fix", table: "Person", kind: .update, key: ["personID": .int32(-7)], values: ["lastName": .string("Hopper")]),
            ]))
            #expect(edited.result("fix")?.status == .applied)
            #expect(edited.result("fix")?.row?["lastName"] == .string("Hopper"))
            #expect(edited.result("fix")?.row?["personID"] == edited.result("new")?.row?["personID"])
        }
    }

    @Test("Conflicts: a row changed or deleted since it was read is reported with the server's row, and nothing changes",
          arguments: Backend.allCases)
    func conflicts(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let stale = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "u", table: "Person", kind: .update, key: ["personID": .int32(2)],
                                original: ["lastName": .string("Rodriguez")], values: ["lastName": .string("Mine")]),
            ]))
            let conflict = try #require(stale.result("u"))
            #expect(conflict.status == .conflict)
            #expect(conflict.serverRow?["lastName"] == .string("Rodríguez"))
            #expect(conflict.message?.contains("lastName") == true)
            #expect(conflict.row == nil)
            #expect(try await client.row("Person", key: "personID", 2)?["lastName"] == .string("Rodríguez"))
            // Keeping mine: resend with the server's values as the originals.
            let resent = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "u", table: "Person", kind: .update, key: ["personID": .int32(2)],
                                original: ["lastName": conflict.serverRow!["lastName"]!], values: ["lastName": .string("Mine")]),
            ]))
            #expect(resent.result("u")?.status == .applied)

            let staleDelete = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "d", table: "Car", kind: .delete, key: ["carID": .int32(3)], original: ["make": .string("Not the make")]),
            ]))
            #expect(staleDelete.result("d")?.status == .conflict)
            #expect(staleDelete.result("d")?.serverRow?["carID"] == .int32(3))
            #expect(try await client.row("Car", key: "carID", 3) != nil)

            let missing = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "gone", table: "Person", kind: .update, key: ["personID": .int32(999_999)], values: ["ssn": .null]),
            ]))
            #expect(missing.result("gone")?.status == .conflict)
            #expect(missing.result("gone")?.serverRow == nil)
            #expect(missing.result("gone")?.message?.contains("no longer exists") == true)
        }
    }

    static func mixedDelta(_ mode: DataTableDelta.Mode) -> DataTableDelta {
        DataTableDelta(mode: mode, changes: [
            DataTableChange(id: "good", table: "Person", kind: .update, key: ["personID": .int32(3)], values: ["ssn": .string("111")]),
            DataTableChange(id: "new", table: "Car", kind: .insert, key: ["carID": .int32(-1)], values: ["make": .string("Ok"), "model": .string("Fine")]),
            DataTableChange(id: "bad", table: "PersonCar", kind: .insert, key: ["personCarID": .int32(-2)],
                            values: ["personID": .int32(999_999), "carID": .int32(1)]),
            DataTableChange(id: "later", table: "Person", kind: .update, key: ["personID": .int32(4)], values: ["ssn": .string("222")]),
        ])
    }

    @Test("All-or-nothing: one failure rolls every change back, and each result says why", arguments: Backend.allCases)
    func allOrNothing(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let cars = try await client.count("/cardealer/Car")
            let response = try await client.apply(Self.mixedDelta(.allOrNothing))
            #expect(response.results.map(\.status) == [.failed, .failed, .failed, .failed])
            #expect(response.result("bad")?.message?.contains("relationship") == true, "\(response.result("bad")?.message ?? "")")
            #expect(response.result("good")?.message?.contains("change bad") == true)
            #expect(response.results.allSatisfy { $0.row == nil })
            #expect(response.keys.isEmpty, "rolled-back inserts report no keys")
            #expect(try await client.row("Person", key: "personID", 3)?["ssn"] == .string("335578462"))
            #expect(try await client.row("Person", key: "personID", 4)?["ssn"] == .string("646664093"))
            #expect(try await client.count("/cardealer/Car") == cars)
        }
    }

    @Test("Independent: every change that can be applied is; the failing one says why", arguments: Backend.allCases)
    func independent(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let cars = try await client.count("/cardealer/Car")
            let response = try await client.apply(Self.mixedDelta(.independent))
            #expect(response.results.map(\.status) == [.applied, .applied, .failed, .applied])
            #expect(response.result("bad")?.message?.contains("relationship") == true)
            #expect(response.keys["Car"]?.count == 1)
            #expect(try await client.row("Person", key: "personID", 3)?["ssn"] == .string("111"))
            #expect(try await client.row("Person", key: "personID", 4)?["ssn"] == .string("222"))
            #expect(try await client.count("/cardealer/Car") == cars + 1)
        }
    }

    @Test("Values are checked as OData writes check them; each refusal is a failed result", arguments: Backend.allCases)
    func validation(_ backend: Backend) async throws {
        try await withWriteServer(backend) { client in
            let refused: [(DataTableChange, String)] = [
                (DataTableChange(id: "long", table: "Person", kind: .update, key: ["personID": .int32(1)],
                                 values: ["firstName": .string(String(repeating: "x", count: 51))]), "at most 50"),
                (DataTableChange(id: "null", table: "Person", kind: .update, key: ["personID": .int32(1)], values: ["firstName": .null]), "cannot be null"),
                (DataTableChange(id: "required", table: "Person", kind: .insert, values: ["firstName": .string("No last name")]), "lastName"),
                (DataTableChange(id: "rekey", table: "Person", kind: .update, key: ["personID": .int32(1)], values: ["personID": .int32(5)]), "cannot be changed"),
                (DataTableChange(id: "nokey", table: "Person", kind: .update, key: ["firstName": .string("Bob")], values: ["ssn": .null]), "key field personID"),
            ]
            for (change, message) in refused {
                let response = try await client.apply(DataTableDelta(changes: [change]))
                let result = try #require(response.result(change.id))
                #expect(result.status == .failed, "\(change.id)")
                #expect(result.message?.contains(message) == true, "\(change.id): \(result.message ?? "")")
            }
            let readOnly = try await client.apply(DataTableDelta(changes: [
                DataTableChange(id: "ro", table: "Notes", kind: .insert, values: ["text": .string("x"), "stamp": .int32(2)]),
            ]), service: LedgerService.name)
            #expect(readOnly.result("ro")?.status == .failed)
            #expect(readOnly.result("ro")?.message?.contains("read-only") == true)
            #expect(try await client.row("Person", key: "personID", 1)?["firstName"] == .string("Bob"))
            // A chosen (not temporary) generated key is refused, unless the service allows client keys;
            // then it is stored as given.
            let change = DataTableChange(id: "c", table: "Counters", kind: .insert, key: ["counterID": .int32(77)], values: ["name": .string("chosen")])
            let refusedKey = try await client.apply(DataTableDelta(changes: [change]), service: LedgerService.name)
            #expect(refusedKey.result("c")?.status == .failed)
            #expect(refusedKey.result("c")?.message?.contains("counterID") == true, "\(refusedKey.result("c")?.message ?? "")")
            try await GeneratedKeyTests.allowClientKeys(client, LedgerService.name)
            let chosen = try await client.apply(DataTableDelta(changes: [change]), service: LedgerService.name)
            #expect(chosen.result("c")?.row?["counterID"] == .int32(77))
            #expect(chosen.result("c")?.row?["value"] == .int32(0), "the column default is in the stored row")
            #expect(chosen.keys.isEmpty)
        }
    }

    @Test("Deltas that cannot be read are 400 and change nothing", arguments: Backend.allCases)
    func malformed(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let urls = ["/cardealer/Person(1)", "/cardealer/Person/$count"]
            let bodies = [
                "", "nope", "[]", #"{"changes":{}}"#, #"{"mode":"some","changes":[]}"#, #"{"changes":[],"extra":1}"#,
                #"{"changes":[{"id":"1","table":"Nope","kind":"insert","values":{}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"upsert","key":{"personID":1}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"update","key":{"personID":1},"values":{"nope":1}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"update","key":{"personID":"one"},"values":{"ssn":"1"}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"update","values":{"ssn":"1"}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"delete","key":{"personID":1},"values":{"ssn":"1"}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"update","key":{"personID":1},"values":{"ssn":"1"}},{"id":"1","table":"Person","kind":"delete","key":{"personID":2}}]}"#,
                #"{"changes":[{"id":"1","table":"Person","kind":"update","key":{"personID":1},"values":{"ssn":"1"},"sql":"DROP TABLE Person"}]}"#,
            ]
            for body in bodies {
                try await client.expectRefused(.badRequest, unchanged: urls) {
                    try await client.send(.post, "/cardealer/$changes", headers: [.contentType: "application/json"], body: body)
                }
            }
            #expect(try await client.get("/cardealer/$changes").status == .methodNotAllowed)
            let empty = try await client.apply(DataTableDelta(changes: []))
            #expect(empty.results.isEmpty)
        }
    }

    /// Person rows may be changed only while personID < 5; Car may not be deleted.
    struct WriteRulesPolicy: AccessPolicy {
        func authorize(_ action: TableAction, table: String, in service: ODataService, principal: Principal?) async throws -> RowAccess {
            if table == "Car", action == .delete { throw ODataError.forbidden("Cars are never deleted.") }
            guard table == "Person", action != .read, let type = service.model.entityType(named: "Person"),
                  let filter = try QueryOptions(parsing: "$filter=personID lt 5").filter else { return .unrestricted }
            return RowAccess(filter: try QueryBinder(model: service.model).bindFilter(filter, on: type))
        }
    }

    @Test("Write rights and row filters apply to each change", arguments: Backend.allCases)
    func accessRules(_ backend: Backend) async throws {
        try await withPolicyServer(backend, policy: WriteRulesPolicy()) { client in
            let before = try await client.row("Person", key: "personID", 9)?["lastName"]
            let response = try await client.apply(DataTableDelta(mode: .independent, changes: [
                DataTableChange(id: "inside", table: "Person", kind: .update, key: ["personID": .int32(1)], values: ["lastName": .string("1")]),
                DataTableChange(id: "outside", table: "Person", kind: .update, key: ["personID": .int32(9)], values: ["lastName": .string("9")]),
                DataTableChange(id: "car", table: "Car", kind: .delete, key: ["carID": .int32(1)]),
            ]))
            #expect(response.results.map(\.status) == [.applied, .failed, .failed])
            #expect(response.result("car")?.message == "Cars are never deleted.")
            #expect(before != nil && before != .string("9"))
            #expect(try await client.row("Person", key: "personID", 9)?["lastName"] == before)
            #expect(try await client.row("Car", key: "carID", 1) != nil)
        }
    }
}
