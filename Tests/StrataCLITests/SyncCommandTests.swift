import ArgumentParser
@testable import StrataCLI
import StrataCore
import Testing

/// `strata sync`'s edit syntax: `Table(key)={json}`, keys as in OData, values by field type.
@Suite("strata sync edits")
struct SyncCommandTests {
    static let fields = [
        DataTableField(name: "personID", type: .int32, key: true),
        DataTableField(name: "carID", type: .int32, key: true),
        DataTableField(name: "note", type: .string),
    ]

    @Test("Edits split into table, key and values; a composite key's = stays in the key")
    func parse() throws {
        let set = try SyncCommand.parseEdit(#"PersonCar(personID=1,carID=2)={"note":"a=b"}"#, needsKey: true, needsValues: true)
        #expect(set.0 == "PersonCar" && set.1 == "personID=1,carID=2" && set.2 == #"{"note":"a=b"}"#)
        let add = try SyncCommand.parseEdit(#"Person={"firstName":"Ada"}"#, needsKey: false, needsValues: true)
        #expect(add.0 == "Person" && add.1 == nil)
        let remove = try SyncCommand.parseEdit("Person(4)", needsKey: true, needsValues: false)
        #expect(remove.0 == "Person" && remove.1 == "4" && remove.2 == nil)
        #expect(throws: CLIError.self) { try SyncCommand.parseEdit("Person(4)", needsKey: true, needsValues: true) }
        #expect(throws: CLIError.self) { try SyncCommand.parseEdit(#"Person={"a":1}"#, needsKey: true, needsValues: true) }
        #expect(throws: CLIError.self) { try SyncCommand.parseEdit(#"Person(4)={"a":1}"#, needsKey: false, needsValues: true) }
    }

    @Test("Keys and values are read as their fields' types; unknown fields and wrong types are refused")
    func values() throws {
        #expect(try SyncCommand.key("personID=1,carID=2", fields: Self.fields, table: "PersonCar") == ["personID": .int32(1), "carID": .int32(2)])
        #expect(throws: CLIError.self) { try SyncCommand.key("7", fields: Self.fields, table: "PersonCar") }
        #expect(throws: CLIError.self) { try SyncCommand.key("personID='x',carID=2", fields: Self.fields, table: "PersonCar") }
        #expect(try SyncCommand.values(#"{"note":"hi","carID":3}"#, fields: Self.fields) == ["note": .string("hi"), "carID": .int32(3)])
        #expect(throws: CLIError.self) { try SyncCommand.values(#"{"nope":1}"#, fields: Self.fields) }
        #expect(throws: CLIError.self) { try SyncCommand.values(#"{"carID":"three"}"#, fields: Self.fields) }
        #expect(throws: (any Error).self) { try SyncCommand.values("[1]", fields: Self.fields) }
    }
}
