import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import StrataServer
import StrataStorage
import StrataIdentity
import StrataOData
import StrataBlobs
import StrataDataTables
import StrataFeed
import Testing

/// Every refusal of a write: the right status, an OData error naming what is wrong, and nothing
/// changed in the database.
@Suite("Write refusals")
struct WriteValidationTests {
    static let people = ["/cardealer/Person/$count", "/cardealer/Person(1)"]

    @Test("Bad bodies are refused with 400 naming the property", arguments: Backend.allCases)
    func badBodies(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let cases: [(body: String, mentions: String)] = [
                (#"{"firstName":"Ann","lastName":"Lee","nickname":"A"}"#, "nickname"),
                (#"{"firstName":5,"lastName":"Lee"}"#, "firstName"),
                (#"{"firstName":"Ann","lastName":null}"#, "lastName"),
                (#"{"firstName":"Ann"}"#, "lastName"),
                (#"{"firstName":"\#(String(repeating: "x", count: 51))","lastName":"Lee"}"#, "firstName"),
                (#"{"firstName":"Ann","lastName":"Lee","createDate":"yesterday"}"#, "createDate"),
                // Beyond what a DateTime holds: refused, not an arithmetic overflow.
                (#"{"firstName":"Ann","lastName":"Lee","createDate":"\/Date(9223372036854775807)\/"}"#, "createDate"),
                (#"{"firstName":"Ann","lastName":"Lee","personID":"1e3"}"#, "personID"),
                (#"{"firstName":"Ann","lastName":"Lee","personID":3000000000}"#, "personID"),
                (#"{"firstName":"Ann","lastName":"Lee","PersonCar":[{"carID":"x"}]}"#, "carID"),
                (#"{"firstName":"Ann","lastName":"Lee","PersonCar":[{}]}"#, "carID"),
                // The database assigns the key of every entity a deep insert creates.
                (#"{"firstName":"Ann","lastName":"Lee","PersonCar":[{"personCarID":5,"carID":1}]}"#, "personCarID of Person/PersonCar[0] is assigned by the database"),
            ]
            for (body, mentions) in cases {
                try await client.expectRefused(.badRequest, unchanged: Self.people + ["/cardealer/PersonCar/$count"], messageContains: mentions) {
                    try await client.post("/cardealer/Person", body)
                }
            }
            // Multi-byte characters count as one each: 50 are allowed.
            let accented = try await client.post("/cardealer/Person", #"{"firstName":"\#(String(repeating: "é", count: 50))","lastName":"Lee"}"#)
            #expect(accented.status == .created, "\(accented.text)")
        }
    }

    @Test("Malformed JSON, non-object bodies and empty bodies are 400", arguments: Backend.allCases)
    func malformed(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            for body in [#"{"firstName":"Ann","#, "[1,2]", "", "nonsense", #"{"firstName":"Ann" "lastName":"Lee"}"#] {
                try await client.expectRefused(.badRequest, unchanged: Self.people) {
                    try await client.post("/cardealer/Person", body)
                }
                try await client.expectRefused(.badRequest, unchanged: Self.people) {
                    try await client.merge("/cardealer/Person(1)", body)
                }
            }
        }
    }

    @Test("A body that is not JSON by its Content-Type is refused with 415", arguments: Backend.allCases)
    func mediaType(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let atom = #"<entry xmlns="http://www.w3.org/2005/Atom"><content/></entry>"#
            try await client.expectRefused(.unsupportedMediaType, unchanged: Self.people) {
                try await client.send(.post, "/cardealer/Person", headers: [.contentType: "application/atom+xml;type=entry"], body: atom)
            }
            let json = try await client.send(.post, "/cardealer/Person", headers: [.contentType: "application/json;odata=verbose"],
                                             body: #"{"firstName":"Ann","lastName":"Lee"}"#)
            #expect(json.status == .created)
        }
    }

    @Test("A body over the configured limit is refused with 413", arguments: Backend.allCases)
    func tooLarge(_ backend: Backend) async throws {
        try await withServer(backend, configure: { $0.maxBodySize = 1024 }) { client in
            let big = #"{"firstName":"Ann","lastName":"Lee","ssn":"\#(String(repeating: "1", count: 2000))"}"#
            try await client.expectRefused(.contentTooLarge, unchanged: Self.people, messageContains: "1024") {
                try await client.post("/cardealer/Person", big)
            }
            #expect(try await client.post("/cardealer/Person", #"{"firstName":"Ann","lastName":"Lee"}"#).status == .created)
        }
    }

    @Test("Decimals beyond the column's scale or precision are 400", arguments: Backend.allCases)
    func decimals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let counts = ["/cardealer/Maintenance/$count"]
            try await client.expectRefused(.badRequest, unchanged: counts, messageContains: "price") {
                try await client.post("/cardealer/Maintenance", #"{"description":"Oil","price":"12.345"}"#)
            }
            try await client.expectRefused(.badRequest, unchanged: counts, messageContains: "price") {
                try await client.post("/cardealer/Maintenance", #"{"description":"Oil","price":123456789.5}"#)
            }
            let ok = try await client.post("/cardealer/Maintenance", #"{"description":"Oil","price":"12.50"}"#)
            #expect(ok.status == .created)
            #expect(ok.json["d"]["price"]?.stringValue == "12.50")
        }
    }

    @Test("Unique and foreign key violations are 409 naming the constraint's table", arguments: Backend.allCases)
    func conflicts(_ backend: Backend) async throws {
        try await withWriteServer(backend) { client in
            try await client.expectRefused(.conflict, unchanged: ["/ledger/Counters/$count"], messageContains: "Counters") {
                try await client.post("/ledger/Counters", #"{"name":"hits"}"#)
            }
            try await client.expectRefused(.conflict, unchanged: ["/cardealer/PersonCar/$count"], messageContains: "PersonCar") {
                try await client.post("/cardealer/PersonCar", #"{"personID":999999,"carID":5}"#)
            }
            try await client.expectRefused(.conflict, unchanged: ["/cardealer/PersonCar(1)"], messageContains: "PersonCar") {
                try await client.merge("/cardealer/PersonCar(1)", #"{"carID":999999}"#)
            }
            // Person 1 owns cars: deleting it would orphan them (the schema does not cascade).
            try await client.expectRefused(.conflict, unchanged: ["/cardealer/Person(1)", "/cardealer/Person/$count"], messageContains: "PersonCar") {
                try await client.delete("/cardealer/Person(1)")
            }
        }
    }

    @Test("Writes to read-only sets and unsupported methods are 405", arguments: Backend.allCases)
    func methodNotAllowed(_ backend: Backend) async throws {
        try await withWriteServer(backend) { client in
            let notes = ["/ledger/Notes"]
            try await client.expectRefused(.methodNotAllowed, unchanged: notes, messageContains: "primary key") {
                try await client.post("/ledger/Notes", #"{"text":"second","stamp":2}"#)
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: notes) {
                try await client.merge("/ledger/Notes(text='first',stamp=1)", #"{"text":"changed"}"#)
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: notes) {
                try await client.delete("/ledger/Notes(text='first',stamp=1)")
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: Self.people) {
                try await client.post("/cardealer/Person(1)", #"{"firstName":"X"}"#)
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: Self.people) {
                try await client.put("/cardealer/Person", #"{"firstName":"X"}"#)
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: Self.people) {
                try await client.delete("/cardealer/Person/$count")
            }
        }
    }

    @Test("Writes to missing entities are 404", arguments: Backend.allCases)
    func missing(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            try await client.expectRefused(.notFound, unchanged: Self.people, messageContains: "Person(424242)") {
                try await client.merge("/cardealer/Person(424242)", #"{"firstName":"X"}"#)
            }
            try await client.expectRefused(.notFound, unchanged: Self.people) {
                try await client.put("/cardealer/Person(424242)", #"{"firstName":"X","lastName":"Y"}"#)
            }
            try await client.expectRefused(.notFound, unchanged: ["/cardealer/PersonCar/$count"]) {
                try await client.delete("/cardealer/Person(1)/PersonCar(3)")
            }
        }
    }
}
