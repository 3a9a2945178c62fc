import Foundation
import HTTPTypes
import HummingbirdTesting
import StrataCore
import Testing

/// Relationships: `$links` reads and changes, and deep insert of related entities.
@Suite("Write links and deep insert")
struct WriteLinkTests {
    @Test("$links: PUT re-points a to-one link, POST adds to a to-many link", arguments: Backend.allCases)
    func setLinks(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let read = try await client.get("/cardealer/PersonCar(1)/$links/Car")
            #expect(read.json["d"]["uri"]?.stringValue == "http://localhost/cardealer/Car(2)")

            let put = try await client.put("/cardealer/PersonCar(1)/$links/Car", #"{"uri":"http://localhost/cardealer/Car(5)"}"#)
            #expect(put.status == .noContent, "\(put.text)")
            #expect(try await client.get("/cardealer/PersonCar(1)/Car").json["d"]["carID"] == .number("5"))

            let post = try await client.post("/cardealer/Person(2)/$links/PersonCar", #"{"uri":"PersonCar(1)"}"#)
            #expect(post.status == .noContent, "\(post.text)")
            #expect(try await client.get("/cardealer/PersonCar(1)/Person").json["d"]["personID"] == .number("2"))
            let links = try await client.get("/cardealer/Person(2)/$links/PersonCar").json["d"]["results"]?.arrayValue ?? []
            #expect(links.contains { $0["uri"]?.stringValue == "http://localhost/cardealer/PersonCar(1)" })
        }
    }

    @Test("$links: DELETE clears a nullable foreign key from either side", arguments: Backend.allCases)
    func removeLinks(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            #expect(try await client.get("/hockey/Equipment(1)").json["d"]["playerID"] == .number("591"))
            let fromMany = try await client.delete("/hockey/Players(591)/$links/Equipment(1)")
            #expect(fromMany.status == .noContent, "\(fromMany.text)")
            #expect(try await client.get("/hockey/Equipment(1)").json["d"]["playerID"] == .null)

            #expect(try await client.put("/hockey/Equipment(1)/$links/Players", #"{"uri":"/hockey/Players(3)"}"#).status == .noContent)
            #expect(try await client.get("/hockey/Equipment(1)").json["d"]["playerID"] == .number("3"))
            let fromOne = try await client.delete("/hockey/Equipment(1)/$links/Players")
            #expect(fromOne.status == .noContent)
            #expect(try await client.get("/hockey/Equipment(1)").json["d"]["playerID"] == .null)
        }
    }

    @Test("$links refusals: non-nullable keys, missing or foreign entities, wrong methods", arguments: Backend.allCases)
    func linkRefusals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let state = ["/cardealer/PersonCar(1)", "/cardealer/PersonCar(3)"]
            try await client.expectRefused(.conflict, unchanged: state, messageContains: "carID") {
                try await client.delete("/cardealer/PersonCar(1)/$links/Car")
            }
            try await client.expectRefused(.notFound, unchanged: state) {
                try await client.put("/cardealer/PersonCar(1)/$links/Car", #"{"uri":"Car(999999)"}"#)
            }
            try await client.expectRefused(.badRequest, unchanged: state, messageContains: "Car") {
                try await client.put("/cardealer/PersonCar(1)/$links/Car", #"{"uri":"Person(1)"}"#)
            }
            try await client.expectRefused(.badRequest, unchanged: state) {
                try await client.put("/cardealer/PersonCar(1)/$links/Car", #"{"url":"Car(5)"}"#)
            }
            try await client.expectRefused(.badRequest, unchanged: state) {
                try await client.put("/cardealer/PersonCar(1)/$links/Car", #"{"uri":"http://elsewhere/other/Car(5)"}"#)
            }
            try await client.expectRefused(.methodNotAllowed, unchanged: state) {
                try await client.post("/cardealer/PersonCar(1)/$links/Car", #"{"uri":"Car(5)"}"#)
            }
            try await client.expectRefused(.notFound, unchanged: state) {
                try await client.delete("/hockey/Players(3)/$links/Equipment(2)")
            }
            try await client.expectRefused(.notFound, unchanged: state) {
                try await client.put("/cardealer/PersonCar(999999)/$links/Car", #"{"uri":"Car(5)"}"#)
            }
        }
    }

    @Test("Deep insert: a person with a new car through PersonCar, in one transaction, echoed whole", arguments: Backend.allCases)
    func deepInsert(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let counts = try await [client.count("/cardealer/Person"), client.count("/cardealer/PersonCar"), client.count("/cardealer/Car")]
            let body = #"{"firstName":"Ann","lastName":"Lee","PersonCar":[{"Car":{"make":"Volvo","model":"240"}},{"Car":{"__metadata":{"uri":"Car(5)"}}}]}"#
            let response = try await client.post("/cardealer/Person", body)
            #expect(response.status == .created, "\(response.text)")
            let person = response.json["d"]
            let personID = person["personID"]
            let cars = person["PersonCar"]["results"]?.arrayValue ?? []
            #expect(cars.count == 2)
            #expect(cars.allSatisfy { $0["personID"] == personID })
            #expect(cars[0]["Car"]["make"]?.stringValue == "Volvo")
            #expect(cars[0]["Car"]["__metadata"]["etag"] != nil)
            #expect(cars[0]["carID"] == cars[0]["Car"]["carID"])
            #expect(cars[1]["carID"] == .number("5"))
            #expect(cars[1]["Car"]["model"]?.stringValue == "Mustang")
            #expect(try await [client.count("/cardealer/Person"), client.count("/cardealer/PersonCar"), client.count("/cardealer/Car")]
                    == [counts[0] + 1, counts[1] + 2, counts[2] + 1])
            let uri = try #require(response.headers[.location]).replacingOccurrences(of: "http://localhost", with: "")
            let stored = try await client.get(uri + "/PersonCar").json["d"]["results"]?.arrayValue ?? []
            #expect(stored.map { $0["carID"] } == cars.map { $0["carID"] })
        }
    }

    @Test("Deep insert binds existing entities on the many side, and refusals anywhere in the tree change nothing", arguments: Backend.allCases)
    func deepInsertRefusals(_ backend: Backend) async throws {
        try await withServer(backend) { client in
            let adopted = try await client.post("/cardealer/Person", #"{"firstName":"New","lastName":"Owner","PersonCar":[{"__metadata":{"uri":"PersonCar(3)"}}]}"#)
            #expect(adopted.status == .created, "\(adopted.text)")
            #expect(try await client.get("/cardealer/PersonCar(3)").json["d"]["personID"] == adopted.json["d"]["personID"])

            let state = ["/cardealer/Person/$count", "/cardealer/PersonCar/$count", "/cardealer/Car/$count", "/cardealer/PersonCar(4)"]
            // Checked before the database: a required property deep in the tree.
            try await client.expectRefused(.badRequest, unchanged: state, messageContains: "model") {
                try await client.post("/cardealer/Person", #"{"firstName":"A","lastName":"B","PersonCar":[{"Car":{"make":"Volvo"}}]}"#)
            }
            // Found in the database after the person was inserted: the whole tree rolls back.
            try await client.expectRefused(.notFound, unchanged: state, messageContains: "Car(999999)") {
                try await client.post("/cardealer/Person", #"{"firstName":"A","lastName":"B","PersonCar":[{"Car":{"make":"Volvo","model":"240"}},{"Car":{"__metadata":{"uri":"Car(999999)"}}}]}"#)
            }
            try await client.expectRefused(.conflict, unchanged: state) {
                try await client.post("/cardealer/Person", #"{"firstName":"A","lastName":"B","PersonCar":[{"__metadata":{"uri":"PersonCar(4)"}},{"carID":999999}]}"#)
            }
            try await client.expectRefused(.badRequest, unchanged: state) {
                try await client.post("/cardealer/Person", #"{"firstName":"A","lastName":"B","PersonCar":{"carID":5}}"#)
            }
        }
    }
}
