import Foundation
@testable import StrataClient
import Testing

/// Data tables on the client alone: field checks, change tracking, reverts, views, deltas,
/// merging results, conflict resolution and briefcases.
@Suite struct DataTableTests {
    static func people() -> DataTable {
        DataTable(name: "Person", fields: [
            DataTableField(name: "personID", type: .int32, required: true, key: true, readOnly: true, serverGenerated: true),
            DataTableField(name: "firstName", type: .string, size: 10, required: true),
            DataTableField(name: "lastName", type: .string, size: 10, required: true),
            DataTableField(name: "born", type: .dateTime),
            DataTableField(name: "score", type: .decimal),
            DataTableField(name: "visits", type: .int16),
        ], rows: [
            [.int32(1), .string("Bob"), .string("Samson"), .null, .decimal(10), .int16(3)],
            [.int32(2), .string("Ann"), .string("Lee"), .null, .null, .int16(1)],
            [.int32(3), .string("Cid"), .string("Lee"), .null, .decimal(2), .null],
        ])
    }

    @Test func fieldsAreEnforcedOnAssignment() throws {
        var table = Self.people()
        let id = table.rows[0].id
        func refusal(_ field: String, _ value: (any ODataValueConvertible)?) -> DataTableError.Kind? {
            do {
                try table.update(id) { row throws(DataTableError) in try row.set(field, to: value) }
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(refusal("firstName", 5) == .typeMismatch)
        #expect(refusal("visits", "three") == .typeMismatch)
        #expect(refusal("visits", 40_000) == .typeMismatch, "out of Int16's range")
        #expect(refusal("visits", 2.5) == .typeMismatch)
        #expect(refusal("born", "2020-01-01") == .typeMismatch)
        #expect(refusal("firstName", nil) == .invalidValue)
        #expect(refusal("firstName", "Bartholomew") == .invalidValue, "longer than the field's size")
        #expect(refusal("personID", 7) == .readOnlyField)
        #expect(refusal("nope", 1) == .unknownField)
        #expect(table[id]?.state == .unchanged, "a refused value changes nothing")
        #expect(refusal("visits", 7) == nil)
        #expect(refusal("score", 1.5) == nil)
        #expect(refusal("born", Date(timeIntervalSince1970: 0)) == nil)
        #expect(table[id]?.visits == .int16(7))
        #expect(table[id]?.score == .decimal(Decimal(string: "1.5")!))
        #expect {
            try table.update(id) { row throws(DataTableError) in try row.set("visits", to: "three") }
        } throws: { error in
            let message = (error as? DataTableError)?.message ?? ""
            return message.contains("visits") && message.contains("Edm.Int16")
        }
        #expect(table[id]?.visits == .int16(7), "the refused assignment changed the field")
    }

    @Test func revertPerFieldAndPerRow() throws {
        var table = Self.people()
        let id = table.rows[0].id
        try table.update(id) { row in
            try row.set("firstName", to: "Rob")
            try row.set("lastName", to: "Sam")
        }
        #expect(table[id]?.state == .modified)
        #expect(table[id]?.changedFields == ["firstName", "lastName"])
        #expect(table[id]?.originalValue(for: "firstName") == .string("Bob"))
        #expect(table[id]?.isChanged("firstName") == true)
        table.update(id) { $0.revert("firstName") }
        #expect(table[id]?.firstName == .string("Bob") && table[id]?.isChanged("firstName") == false)
        #expect(table[id]?.state == .modified)
        table.update(id) { $0.revert("lastName") }
        #expect(table[id]?.state == .unchanged, "a row whose values are all original again is unchanged")
        try table.update(id) { row in
            try row.set("visits", to: 9)
            row.delete()
        }
        #expect(table[id]?.state == .deleted && table.rows.count == 2)
        table.update(id) { $0.revert() }
        #expect(table[id]?.state == .unchanged && table[id]?.visits == .int16(3) && table.rows.count == 3)
        // Setting a field back to its original value by hand also makes the row unchanged.
        try table.update(id) { try $0.set("visits", to: 4) }
        try table.update(id) { try $0.set("visits", to: 3) }
        #expect(!table.hasChanges)
    }

    @Test func addedRowsGetTemporaryKeysAndCancel() throws {
        var table = Self.people()
        let first = try table.addRow(["firstName": "New", "lastName": "One"])
        let second = try table.addRow(["firstName": "New", "lastName": "Two"])
        #expect(table[first]?.personID == .int32(-1) && table[second]?.personID == .int32(-2))
        #expect(table.rows(.added).count == 2 && table.hasChanges)
        #expect(throws: DataTableError.self) { try table.addRow(["personID": 5]) }
        try table.deleteRow(second)
        #expect(try table.changes().count == 1, "an added row deleted again is not sent")
        table.cancelChanges(of: first)
        #expect(table[first] == nil)
        try table.update(table.rows[1].id) { try $0.set("lastName", to: "X") }
        table.cancelAllChanges()
        #expect(!table.hasChanges && table.rows.count == 3 && table[second] == nil)
    }

    @Test func sortedAndFilteredViews() throws {
        var table = Self.people()
        #expect(table.sorted(by: "lastName", .descending("firstName")).map(\.firstName) == [.string("Cid"), .string("Ann"), .string("Bob")])
        #expect(table.sorted(by: "score").map(\.personID) == [.int32(2), .int32(3), .int32(1)], "null first")
        #expect(table.sorted(by: .descending("visits")).map(\.personID) == [.int32(1), .int32(2), .int32(3)])
        #expect(table.sorted { ($0.firstName?.stringValue ?? "") < ($1.firstName?.stringValue ?? "") }.map(\.personID)
                == [.int32(2), .int32(1), .int32(3)])
        #expect(table.filtered(by: "lastName", equals: "Lee").map(\.personID) == [.int32(2), .int32(3)])
        #expect(table.filtered(by: "visits", equals: 3).count == 1)
        #expect(table.filtered { $0.score != .null }.count == 2)
        // A view's row addresses the table's one row: changes made through its id show everywhere.
        let lee = try #require(table.filtered(by: "lastName", equals: "Lee").first)
        try table.update(lee.id) { try $0.set("firstName", to: "Anna") }
        #expect(table.sorted(by: "firstName").first?.firstName == .string("Anna"))
    }

    @Test func deltaAndMerge() throws {
        var table = Self.people()
        let ids = table.rows.map(\.id)
        try table.update(ids[0]) { try $0.set("lastName", to: "Samsonite") }
        try table.update(ids[1]) { try $0.set("visits", to: 2) }
        try table.deleteRow(ids[2])
        let added = try table.addRow(["firstName": "Dee", "lastName": "Day"])
        let changes = try table.changes(idPrefix: "0/")
        #expect(changes.map(\.kind) == [.update, .update, .delete, .insert])
        #expect(changes[0] == DataTableChange(id: "0/\(ids[0])", table: "Person", kind: .update, key: ["personID": .int32(1)],
                                              original: ["lastName": .string("Samson")], values: ["lastName": .string("Samsonite")]))
        #expect(changes[2].original["firstName"] == .string("Cid") && changes[2].values.isEmpty)
        #expect(changes[3].key == ["personID": .int32(-1)])
        #expect(changes[3].values == ["firstName": .string("Dee"), "lastName": .string("Day")])

        let response = DataTableChangeResponse(results: [
            DataTableChangeResult(id: "0/\(ids[0])", status: .applied,
                                  row: ["personID": .int32(1), "firstName": .string("Bob"), "lastName": .string("Samsonite"), "visits": .int16(30)]),
            DataTableChangeResult(id: "0/\(ids[1])", status: .conflict, serverRow: ["personID": .int32(2), "visits": .int16(8)], message: "changed"),
            DataTableChangeResult(id: "0/\(ids[2])", status: .applied),
            DataTableChangeResult(id: "0/\(added)", status: .failed, message: "refused"),
        ])
        table.merge(response, idPrefix: "0/")
        #expect(table[ids[0]]?.state == .unchanged && table[ids[0]]?.visits == .int16(30), "applied rows take the server's values")
        #expect(table[ids[1]]?.conflict?.server?["visits"] == .int16(8))
        #expect(table[ids[1]]?.conflict?.mine["visits"] == .int16(2))
        #expect(table[ids[1]]?.conflict?.original["visits"] == .int16(1))
        #expect(table[ids[2]] == nil, "an applied delete leaves the table")
        #expect(table[added]?.error?.message == "refused" && table[added]?.state == .added)

        var keep = table, take = table, merge = table
        try keep.resolveConflict(of: ids[1], .keepMine)
        #expect(keep[ids[1]]?.visits == .int16(2) && keep[ids[1]]?.originalValue(for: "visits") == .int16(8))
        try take.resolveConflict(of: ids[1], .takeServer)
        #expect(take[ids[1]]?.visits == .int16(8) && take[ids[1]]?.conflict == nil)
        try merge.update(ids[1]) { try $0.set("firstName", to: "Annie") }
        try merge.resolveConflict(of: ids[1], .merge(keepingMine: ["firstName"]))
        #expect(merge[ids[1]]?.firstName == .string("Annie") && merge[ids[1]]?.visits == .int16(8))
    }

    @Test func pendingRowsAdoptStoredKeys() throws {
        var links = DataTable(name: "PersonCar", fields: [
            DataTableField(name: "personCarID", type: .int32, required: true, key: true, readOnly: true, serverGenerated: true),
            DataTableField(name: "personID", type: .int32, required: true),
            DataTableField(name: "carID", type: .int32, required: true),
        ])
        let waiting = try links.addRow(["personID": -1, "carID": 5])
        let other = try links.addRow(["personID": -2, "carID": -1])
        // An independent apply stored the new Person -1 and Car -1, but not these links.
        links.merge(DataTableChangeResponse(results: [], keys: [
            "Person": [.init(temporary: ["personID": .int32(-1)], key: ["personID": .int32(301)])],
            "Car": [.init(temporary: ["carID": .int32(-1)], key: ["carID": .int32(77)])],
        ]))
        #expect(links[waiting]?.personID == .int32(301) && links[waiting]?.carID == .int32(5))
        #expect(links[other]?.personID == .int32(-2) && links[other]?.carID == .int32(77))
        #expect(links[waiting]?.personCarID == .int32(-1), "the row's own temporary key is not a reference")
    }

    @Test func briefcaseRoundTrip() throws {
        var table = Self.people()
        let ids = table.rows.map(\.id)
        try table.update(ids[0]) { try $0.set("born", to: Date(timeIntervalSince1970: 1_257_008_908.44)) }
        try table.deleteRow(ids[1])
        let added = try table.addRow(["firstName": "Eve", "lastName": "Ng", "score": Decimal(string: "12.50")!])
        table.merge(DataTableChangeResponse(results: [
            DataTableChangeResult(id: "\(ids[0])", status: .conflict, serverRow: ["personID": .int32(1), "firstName": .string("Robert")], message: "changed"),
        ]))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        var briefcase = Briefcase(properties: ["owner": "ann"])
        briefcase["Person"] = table
        try briefcase.write(to: file)
        let loaded = try Briefcase(contentsOf: file)
        let restored = try #require(loaded["Person"])
        #expect(loaded.properties == ["owner": "ann"])
        #expect(restored.fields == table.fields)
        for row in table.storage {
            let copy = try #require(restored[row.id])
            #expect(copy.values == row.values && copy.originalValues == row.originalValues && copy.state == row.state)
        }
        #expect(restored[ids[0]]?.conflict?.server?["firstName"] == .string("Robert"))
        #expect(restored[added]?.score == .decimal(Decimal(string: "12.5")!))
        #expect(try restored.changes() == table.changes())
        // Writing again replaces the file whole.
        try Briefcase().write(to: file)
        #expect(try Briefcase(contentsOf: file).tables.isEmpty)
        #expect(throws: DataTableError.self) { try Briefcase(contentsOf: file.appendingPathExtension("missing")) }
        try Data("{\"format\":\"other\"}".utf8).write(to: file)
        #expect(throws: DataTableError.self) { try Briefcase(contentsOf: file) }
    }
}
